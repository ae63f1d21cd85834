import BreezeProtocol
import Testing

@Suite struct JSONValueTests {
    @Test(arguments: [
        "null", "true", "false", "0", "-12", "3.25", "1e3", "\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\"",
        "[]", "{}", "[1,[2,[3]]]", "{\"a\":{\"b\":[true,null]}}", " { \"x\" : 1 } ",
    ])
    func parsesValidJSON(text: String) throws {
        _ = try JSONValue.parse(text)
    }

    @Test(arguments: [
        "", "{", "}", "[1,]", "{\"a\":}", "{a:1}", "'x'", "01", "1.", "-", "1e", "tru", "nul", "\"abc",
        "\"\\x\"", "\"\\ud800\"", "{\"a\":1}x", "[1 2]", "\"tab\there\"", "NaN", "Infinity", "1e999",
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        // A \u escape is exactly four hex digits: no sign, no space, no fewer.
        "\"\\u+041\"", "\"\\u-000\"", "\"\\u 041\"", "\"\\u041\"", "\"\\ud83d\\u+e00\"",
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: ProtocolError.self) { try JSONValue.parse(text) }
    }

    @Test func roundTripsThroughItsEncoding() throws {
        let value = JSONValue.object([
            ("class", .string("LOCATION")), ("name", .string("Zürich, \"CH\"\n")), ("lat", .number(47.3769)),
            ("n", .number(42)), ("ok", .bool(true)), ("none", .null), ("list", .array([.number(-1.5), .string("")])),
        ])
        let text = value.encoded()
        #expect(text == #"{"class":"LOCATION","name":"Zürich, \"CH\"\n","lat":47.3769,"n":42,"ok":true,"none":null,"list":[-1.5,""]}"#)
        #expect(try JSONValue.parse(text)["name"] == .string("Zürich, \"CH\"\n"))
        #expect(try JSONValue.parse(text)["list"] == .array([.number(-1.5), .string("")]))
    }

    @Test func encodesNonFiniteNumbersAsNull() {
        #expect(JSONValue.array([.number(.nan), .number(.infinity)]).encoded() == "[null,null]")
    }

    @Test func lineSeparatorsAreEscapedSoALineStaysOneLine() {
        #expect(!JSONValue.string("a\u{2028}b\u{0}c").encoded().contains("\u{2028}"))
        #expect(JSONValue.string("a\u{0}").encoded() == #""a\u0000""#)
    }
}
