import BreezeCore
import BreezeDaemon
import Testing

/// The INI parser: what it accepts, and that no text makes it trap.
@Suite struct ConfigurationFileTests {
    @Test func crlfLineEndingsAndAByteOrderMarkAreAccepted() throws {
        let text = "\u{FEFF}# breezed\r\n[gpsd]\r\naddress=10.0.0.2:2948\r\n\r\n[data]\r\noffline=true\r\n"
        let file = try ConfigurationFile(text: text, name: "crlf.conf")
        #expect(file.sections["gpsd"]?["address"]?.value == "10.0.0.2:2948")
        #expect(file.sections["gpsd"]?["address"]?.line == 3)
        #expect(file.sections["data"]?["offline"]?.value == "true")
        var configuration = DaemonConfiguration()
        try configuration.apply(file)
        #expect(configuration.offline)
        #expect(configuration.gpsd?.port == 2948)
    }

    @Test func aBadLineIsNamedByItsNumber() {
        #expect {
            _ = try ConfigurationFile(text: "[gpsd]\r\nwhat\r\n", name: "bad.conf")
        } throws: { error in
            (error as? ConfigurationError)?.line == 2
        }
    }

    @Test(arguments: [
        "[", "[]", "[\r\n", "=", "=\r\n", "\r", "\r\r\n", "\u{FEFF}", "\u{0}", "a=\u{0}", "[a]\n[a]\nb=1\nb=2",
        "\u{FEFF}\u{FEFF}x=1", "x\r=1", "é́́́=1", "[\u{1B}]", String(repeating: "[", count: 10_000),
    ])
    func anyTextIsParsedOrRefusedWithoutATrap(text: String) {
        _ = try? ConfigurationFile(text: text, name: "fuzz.conf")
    }

    @Test func aControlCharacterInAValueIsRefused() {
        #expect(throws: ConfigurationError.self) {
            _ = try ConfigurationFile(text: "[socket]\npath=/run/a\u{0}b\n", name: "nul.conf")
        }
    }
}
