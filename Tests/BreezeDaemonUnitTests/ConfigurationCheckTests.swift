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
        #expect(check.report.hasSuffix(": the configuration can be used\n"))
    }
}
