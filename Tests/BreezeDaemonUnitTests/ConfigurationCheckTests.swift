import BreezeCore
import BreezeDaemon
import Foundation
import Testing

/// `breezed --check-config [FILE]`: how it is parsed, and every problem it finds without starting the daemon.
@Suite struct ConfigurationCheckTests {
    /// The check of a file holding `text`, with `flags` after `--check-config FILE`.
    static func check(_ text: String, flags: [String] = []) throws -> ConfigurationCheck {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try folder.write(Array(text.utf8), to: "breezed.conf")
        return ConfigurationCheck(try DaemonOptions.parse(["--check-config", folder.path + "/breezed.conf"] + flags))
    }

    @Test func checkConfigTakesAnOptionalFile() throws {
        let bare = try DaemonOptions.parse(["--check-config"])
        #expect(bare.action == .checkConfig)
        #expect(bare.configPath == nil)

        let withFile = try DaemonOptions.parse(["--check-config", "/etc/other.conf"])
        #expect(withFile.action == .checkConfig)
        #expect(withFile.configPath == "/etc/other.conf")

        let withEquals = try DaemonOptions.parse(["--check-config=/etc/other.conf"])
        #expect(withEquals.configPath == "/etc/other.conf")

        // An option after it is no file: --config names the file then.
        let thenConfig = try DaemonOptions.parse(["--check-config", "--config", "/etc/b.conf"])
        #expect(thenConfig.action == .checkConfig)
        #expect(thenConfig.configPath == "/etc/b.conf")

        let relative = try DaemonOptions.parse(["--check-config", "b.conf"])
        #expect(relative.configPath == FileManager.default.currentDirectoryPath + "/b.conf")
    }

    @Test func theShippedConfigurationCanBeUsed() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("etc/breezed.conf")
        let check = ConfigurationCheck(try DaemonOptions.parse(["--check-config", shipped.path]))
        #expect(check.fileExists)
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.report == "\(shipped.path): the configuration can be used\n")
    }

    @Test func everyBadValueIsListedWithItsLine() throws {
        let check = try Self.check("""
            [geoclue]
            accuracy=9
            [location]
            fix_timeout=30
            movement_threshold=-5
            [socket]
            max_clients=0
            """)
        #expect(check.problems.map(\.line) == [2, 5, 7])
        let lines = check.report.split(separator: "\n")
        try #require(lines.count == 3)
        #expect(lines[0].hasSuffix("breezed.conf:2: [geoclue] accuracy: expected a whole number from 0 to 8, found \"9\""))
        #expect(lines[1].contains(":5: [location] movement_threshold: expected a number from 0.0 to 100000.0"))
        #expect(lines[2].contains(":7: [socket] max_clients: expected a whole number from 1 to 65536"))
    }

    @Test func anUnknownKeyIsAProblem() throws {
        let check = try Self.check("[daemon]\nlog_levels=debug\n")
        #expect(check.problems.count == 1)
        #expect(check.problems.first?.line == 2)
        #expect(check.problems.first?.message.contains("unknown setting: known keys are state_dir, cache_dir, log_level") == true)
    }

    @Test func aLineThatDoesNotParseEndsTheCheckThere() throws {
        let check = try Self.check("[data]\noffline=maybe\nthis is not a setting\n")
        #expect(check.problems.count == 1)
        #expect(check.problems.first?.line == 3)
        #expect(check.problems.first?.message.contains("expected key=value") == true)
    }

    @Test func aMissingFileNamedIsAProblem() throws {
        let check = ConfigurationCheck(try DaemonOptions.parse(["--check-config", "/nonexistent/breezed.conf"]))
        #expect(!check.fileExists)
        #expect(check.problems.count == 1)
        #expect(check.report == "/nonexistent/breezed.conf: cannot read the file: it does not exist\n")
    }

    @Test func aGoodFileHasNoProblems() throws {
        let check = try Self.check("[location]\nfallback_city=Bern\n[daemon]\nlog_level=debug\n", flags: ["--offline"])
        #expect(check.problems.isEmpty)
        #expect(check.report.hasSuffix(": the configuration can be used\nfallback_city: Bern, Switzerland (GeoNames 2661552)\n"))
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every INI block the documentation shows for breezed.conf: the README's `ini` blocks (not the one for
    /// geoclue.conf, whose first section is `[agent]`), the examples (`.nf` … `.fi`) of breezed.conf(5), and the
    /// shipped file.
    static func documentedBlocks() throws -> [(source: String, text: String)] {
        var blocks: [(String, String)] = []
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        for (number, part) in readme.components(separatedBy: "```ini\n").dropFirst().enumerated() {
            let block = part.components(separatedBy: "\n```").first ?? ""
            if block.hasPrefix("[agent]") { continue }
            blocks.append(("README.md, ini block \(number + 1)", block))
        }
        let manual = try String(
            contentsOf: repository.appendingPathComponent("docs/man/breezed.conf.5"), encoding: .utf8)
        for (number, part) in manual.components(separatedBy: "\n.nf\n").dropFirst().enumerated() {
            blocks.append(("breezed.conf(5), example \(number + 1)", part.components(separatedBy: "\n.fi").first ?? ""))
        }
        blocks.append(
            ("etc/breezed.conf", try String(contentsOf: repository.appendingPathComponent("etc/breezed.conf"), encoding: .utf8)))
        return blocks
    }

    @Test func everyConfigurationTheDocumentationShowsCanBeUsed() throws {
        let blocks = try Self.documentedBlocks()
        // The README's [mqtt] block, the manual's example and the shipped file.
        #expect(blocks.count >= 3, "\(blocks.map(\.source))")
        #expect(blocks.contains { $0.source.hasPrefix("breezed.conf(5)") })
        for (source, text) in blocks {
            let folder = TemporaryFolder()
            defer { folder.remove() }
            // The files a block names under /etc/breezed are stand-ins made here.
            for name in ["mqtt-password", "mqtt-ca.pem", "google-pollen-key"] {
                try folder.write(Array("stand-in\n".utf8), to: name)
            }
            let local = text.replacingOccurrences(of: "/etc/breezed/", with: folder.path + "/")
            try folder.write(Array(local.utf8), to: "breezed.conf")
            let check = ConfigurationCheck(try DaemonOptions.parse(["--check-config", folder.path + "/breezed.conf"]))
            #expect(check.problems.isEmpty, "\(source): \(check.problems.map(\.description))")
        }
    }

    @Test func theFallbackCityIsShownAsItResolves() throws {
        let check = try Self.check("[location]\nfallback_city = zurich   # the office\n")
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.fallbackPlace?.id == 2_657_896)
        #expect(check.report.hasSuffix("fallback_city: Zürich, Zurich, Switzerland (GeoNames 2657896)\n"), "\(check.report)")
        let byID = try Self.check("[location]\nfallback_city=2661552\n")
        #expect(byID.fallbackPlace?.name == "Bern")
    }

    @Test(arguments: ["Atlantiss", "Zuerichh", "Bern, Italy", "999999999"])
    func aFallbackCityThatNamesNoCityExactlyIsRefused(name: String) throws {
        let check = try Self.check("[data]\noffline=true\n[location]\nfallback_city=\(name)\n")
        try #require(check.problems.count == 1, "\(check.problems)")
        #expect(check.problems[0].line == 4)
        #expect(check.problems[0].message.hasPrefix("[location] fallback_city: no "), "\(check.problems[0])")
        #expect(check.fallbackPlace == nil)
    }

    @Test func aMisspeltFallbackCityIsToldTheNearestNames() throws {
        let check = try Self.check("[location]\nfallback_city=Atlantiss\n")
        let message = try #require(check.problems.first?.message)
        #expect(message.contains("the nearest: Atlantis"), "\(message)")
    }

    @Test func theFilesTheConfigurationNamesAreChecked() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try folder.write(Array("secret\n".utf8), to: "password")
        let check = try Self.check("""
            [data]
            ca_file=\(folder.path)/missing.pem
            google_pollen_key_file=\(folder.path)
            [mqtt]
            url=mqtt://broker
            password_file=\(folder.path)/password
            """)
        #expect(check.problems.map(\.line) == [2, 3], "\(check.problems)")
        #expect(check.problems.first?.message.hasSuffix("missing.pem does not exist") == true)
        #expect(check.problems.last?.message.hasSuffix("is a folder, not a file") == true)
    }

    @Test func aReloadNamesTheSettingsThatNeedARestart() {
        let before = DaemonConfiguration()
        var after = before
        after.fixTimeout = 60
        after.refresh[.air] = 600
        after.fallbackCity = "Oslo"
        after.mqtt.keepalive = 30
        #expect(
            after.settingsChanged(from: before)
                == ["[location] fix_timeout", "[location] fallback_city", "[data] air_refresh", "[mqtt]"])
        #expect(before.settingsChanged(from: before).isEmpty)
    }
}
