import BreezeCore
import BreezeDaemon
import BreezeGPSD
import Foundation
import Testing

/// `breezed`'s flags: what each sets, in what order they apply over the file, and what is refused.
@Suite struct DaemonOptionsTests {
    /// The configuration for `flags` over a file holding `file`.
    static func configuration(file: String, _ flags: [String]) throws -> DaemonConfiguration {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try folder.write(Array(file.utf8), to: "breezed.conf")
        return try DaemonOptions.parse(["--config", folder.path + "/breezed.conf"] + flags).configuration()
    }

    @Test func mqttFlagsOverTheFile() throws {
        let configuration = try Self.configuration(
            file: "[mqtt]\nurl = mqtt://old.lan\nnode = old\n", ["--mqtt", "mqtt://u:p@new.lan:1884", "--mqtt-node", "car"])
        #expect(configuration.mqtt.broker?.host == "new.lan" && configuration.mqtt.broker?.port == 1884)
        #expect(configuration.mqtt.broker?.password == "p")
        #expect(configuration.mqtt.nodeName == "car")
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--mqtt", "ftp://x"]) }
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--mqtt-node", "a+b"]) }
    }

    @Test func noArgumentsRunWithTheDefaultFile() throws {
        let options = try DaemonOptions.parse([])
        #expect(options.action == .run)
        #expect(options.configPath == nil)
        #expect(options.arguments == [])
    }

    @Test(arguments: [
        (["--help"], DaemonOptions.Action.help), (["-h"], .help), (["--version"], .version),
        (["--offline", "--version"], .version), (["--no-gpsd"], .run),
    ])
    func helpAndVersionAreActions(arguments: [String], action: DaemonOptions.Action) throws {
        #expect(try DaemonOptions.parse(arguments).action == action)
    }

    @Test func everyFlagSetsItsValue() throws {
        let configuration = try Self.configuration(file: "", [
            "--socket", "/tmp/b.sock", "--state-dir", "/tmp/state", "--cache-dir", "/tmp/cache",
            "--gpsd", "10.1.2.3:2950", "--no-geoclue", "--offline", "--api-base", "http://127.0.0.1:8080",
            "--fallback-city", "Bern", "--log-level", "debug",
        ])
        #expect(configuration.socketPath == "/tmp/b.sock")
        #expect(configuration.stateDirectory == "/tmp/state")
        #expect(configuration.cacheDirectory == "/tmp/cache")
        #expect(configuration.gpsd == GPSDAddress(host: "10.1.2.3", port: 2950))
        #expect(configuration.geoclue == false)
        #expect(configuration.offline)
        #expect(configuration.endpoints.airQuality.host == "127.0.0.1")
        #expect(configuration.endpoints.airQuality.port == 8080)
        #expect(configuration.fallbackCity == "Bern")
        #expect(configuration.logLevel == .debug)
    }

    @Test func aFlagWithAnEqualsSignTakesItsValue() throws {
        let configuration = try Self.configuration(file: "", ["--socket=/tmp/x.sock", "--log-level=error"])
        #expect(configuration.socketPath == "/tmp/x.sock")
        #expect(configuration.logLevel == .error)
    }

    @Test func relativePathsAreMadeAbsoluteFromTheWorkingFolder() throws {
        let configuration = try Self.configuration(file: "", ["--socket", "run/b.sock", "--state-dir", "state"])
        let here = FileManager.default.currentDirectoryPath
        #expect(configuration.socketPath == here + "/run/b.sock")
        #expect(configuration.stateDirectory == here + "/state")
        let options = try DaemonOptions.parse(["--config", "etc/b.conf"])
        #expect(options.configPath == here + "/etc/b.conf")
    }

    @Test func flagsWinOverTheFileAndTheFileOverTheDefaults() throws {
        let file = "[socket]\npath=/run/file.sock\nmax_clients=7\n[daemon]\nlog_level=warning\n"
        let configuration = try Self.configuration(file: file, ["--socket", "/run/flag.sock"])
        #expect(configuration.socketPath == "/run/flag.sock")
        #expect(configuration.maximumClients == 7)
        #expect(configuration.logLevel == .warning)
        #expect(configuration.stateDirectory == "/var/lib/breezed")
    }

    @Test func noGPSDOverTheFileLeavesNoGPSD() throws {
        let configuration = try Self.configuration(file: "[gpsd]\naddress=10.0.0.9:2947\n", ["--no-gpsd"])
        #expect(configuration.gpsd == nil)
        #expect(try Self.configuration(file: "[gpsd]\naddress=10.0.0.9:2947\n", []).gpsd?.host == "10.0.0.9")
    }

    @Test func laterFlagsWinOverEarlierOnes() throws {
        let configuration = try Self.configuration(file: "", ["--log-level", "error", "--log-level", "notice"])
        #expect(configuration.logLevel == .notice)
    }

    @Test func theArgumentsAreKeptUnchanged() throws {
        let options = try DaemonOptions.parse(["--offline", "--socket=/tmp/a"])
        #expect(options.arguments == ["--offline", "--socket=/tmp/a"])
    }

    @Test(arguments: [
        (["--socket"], "--socket needs a value"),
        (["--socket", "--offline"], "--socket needs a value"),
        (["--socket="], "--socket needs a value"),
        (["--fallback-city", "a\u{7}b"], "--fallback-city has a control character in its value"),
        (["--gpsd", "gps:0"], "--gpsd expects HOST:PORT, not \"gps:0\""),
        (["--api-base", "file:///x"], "--api-base expects an http:// or https:// URL, not \"file:///x\""),
        (["--log-level", "trace"], "--log-level expects error, warning, notice, info or debug, not \"trace\""),
        (["-x"], "unknown option \"-x\""),
        (["--offline=yes"], "unknown option \"yes\""),
    ])
    func aBadFlagIsNamed(arguments: [String], message: String) {
        #expect {
            _ = try DaemonOptions.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.message == message
        }
    }

    @Test func aMissingFileNamedOnTheCommandLineIsAnError() throws {
        let options = try DaemonOptions.parse(["--config", "/nonexistent/breezed.conf"])
        #expect {
            _ = try options.configuration()
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.file == "/nonexistent/breezed.conf" && error?.line == nil
                && error?.message == "cannot read the file: it does not exist"
        }
    }

    @Test func aFileThatIsNotUTF8IsRefused() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try folder.write([0x5B, 0x67, 0x70, 0x73, 0x64, 0x5D, 0x0A, 0xFF, 0xFE], to: "latin.conf")
        let options = try DaemonOptions.parse(["--config", folder.path + "/latin.conf"])
        #expect {
            _ = try options.configuration()
        } throws: { error in
            (error as? ConfigurationError)?.message == "not UTF-8 text"
        }
    }

    @Test func aFileAtTheSizeLimitIsRead() throws {
        let line = "# padding\n"
        let text = String(repeating: line, count: ConfigurationFile.maximumSize / line.utf8.count)
            + String(repeating: "#", count: ConfigurationFile.maximumSize % line.utf8.count)
        #expect(text.utf8.count == ConfigurationFile.maximumSize)
        let configuration = try Self.configuration(file: text, [])
        #expect(configuration == DaemonConfiguration())
    }

    @Test func aBadValueInTheFileNamesTheFileAndTheLine() throws {
        #expect {
            _ = try Self.configuration(file: "# c\n[data]\noffline=maybe\n", [])
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.line == 3 && error?.file.hasSuffix("/breezed.conf") == true
                && error?.message == "[data] offline: expected true or false, found \"maybe\""
        }
    }
}
