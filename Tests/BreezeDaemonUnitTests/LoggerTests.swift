import BreezeDaemon
import Testing

/// One log call is one journal line, whatever the strings from outside hold.
@Suite struct LoggerTests {
    static let hostile = [
        "Zürich\n<0>kernel panic", "\u{1B}[2J\u{1B}[31mred", "bell\u{07}", "carriage\rreturn", "nul\u{0}byte",
        "\r\n<3>forged", "tab\there", "del\u{7F}", "c1\u{85}next line", "line\u{2028}separator", "back\\slash\"quote",
    ]

    @Test(arguments: hostile)
    func aHostileFieldStaysOnOneLine(value: String) {
        let line = Logger.line(.warning, "place.online", ["name": value, "reason": value])
        #expect(line.hasPrefix("<4>place.online "))
        #expect(line.hasSuffix("\n"))
        let body = line.dropLast()
        let controls = body.unicodeScalars.filter { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" }
        #expect(controls.isEmpty, "\(line.debugDescription)")
    }

    @Test func controlCharactersAreShownVisibly() {
        let line = Logger.line(.info, "web.failed", ["reason": "a\u{1B}b\rc\nd\u{0}e"])
        #expect(line == "<6>web.failed reason=a\\x1bb\\rc\\nd\\x00e\n", "\(line.debugDescription)")
    }

    @Test func quotesAndSpacesStillQuote() {
        #expect(Logger.line(.info, "place", ["name": "Bern, Switzerland", "q": "say \"hi\""])
            == "<6>place name=\"Bern, Switzerland\" q=\"say \\\"hi\\\"\"\n")
        #expect(Logger.line(.info, "place", ["name": ""]) == "<6>place name=\"\"\n")
    }

    @Test func aLongFieldIsCut() {
        let line = Logger.line(.info, "search", ["query": String(repeating: "z", count: 100_000)])
        #expect(line.count < Logger.maximumFieldLength + 100)
        #expect(line.contains("…"))
    }
}
