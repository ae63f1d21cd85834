import BreezeCore
import BreezeProtocol
import Testing

@Suite struct JSONValueTests {
    @Test(arguments: [
        ("null", JSONValue.null), ("true", .bool(true)), ("false", .bool(false)), ("0", .number(0)),
        ("-12", .number(-12)), ("3.25", .number(3.25)), ("1e3", .number(1_000)),
        ("\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\"", .string("a\"b\\c\né😀")),
        ("[]", .array([])), ("{}", .object([])),
        ("[1,[2,[3]]]", .array([.number(1), .array([.number(2), .array([.number(3)])])])),
        ("{\"a\":{\"b\":[true,null]}}", .object([("a", .object([("b", .array([.bool(true), .null]))]))])),
        (" { \"x\" : 1 } ", .object([("x", .number(1))])),
    ])
    func parsesValidJSON(text: String, value: JSONValue) throws {
        #expect(try JSONValue.parse(text) == value)
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

    /// Whole numbers of up to 15 digits are read without strtod: each must be the Double strtod makes of it, the
    /// sign of zero included, and longer ones still go through strtod.
    @Test func wholeNumbersAreTheDoublesTheirTextIs() throws {
        var random = SystemRandomNumberGenerator()
        var texts = [
            "0", "-0", "9", "-9", "999999999999999", "-999999999999999", "1000000000000000",
            "9007199254740993", "-9007199254740993", "123456789012345678901234567890",
        ]
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...18, using: &random)
            var text = String(Int.random(in: 1...9, using: &random))
            for _ in 1..<digits { text += String(Int.random(in: 0...9, using: &random)) }
            texts.append(Bool.random(using: &random) ? "-" + text : text)
        }
        for text in texts {
            let expected = try #require(Double(text))
            guard case .array(let items) = try JSONValue.parse("[" + text + "]"), case .number(let value)? = items.first
            else {
                Issue.record("\(text) is not a number")
                continue
            }
            #expect(value.bitPattern == expected.bitPattern, "\(text): \(value) against \(expected)")
        }
    }

    @Test func roundTripsThroughItsEncoding() throws {
        let value = JSONValue.object([
            ("class", .string("LOCATION")), ("name", .string("Zürich, \"CH\"\n")), ("lat", .number(47.3769)),
            ("n", .number(42)), ("ok", .bool(true)), ("none", .null), ("list", .array([.number(-1.5), .string("")])),
        ])
        let text = value.encoded()
        #expect(
            text
                == #"{"class":"LOCATION","name":"Zürich, \"CH\"\n","lat":47.3769,"n":42,"ok":true,"none":null,"list":[-1.5,""]}"#
        )
        #expect(try JSONValue.parse(text)["name"] == .string("Zürich, \"CH\"\n"))
        #expect(try JSONValue.parse(text)["list"] == .array([.number(-1.5), .string("")]))
    }

    /// A key given again keeps its first place and takes the last value, in a small object and past the point where
    /// keys are looked up instead of compared in turn; keys that only look alike stay apart.
    @Test(arguments: [1, 2, 31, 32, 33, 34, 40, 200, 3_000])
    func theLastOfRepeatedKeysWinsWhereverTheyAre(count: Int) throws {
        let keys = (0..<count).map { "k\($0)" }
        // Every key, then a repeat of the first, of the one at the threshold, of the last, and keys that differ
        // from others only by an escape or by case.
        var written = keys.enumerated().map { (key: $0.element, value: Double($0.offset)) }
        for repeated in Set([0, min(32, count - 1), count - 1]).sorted() {
            written.append((keys[repeated], Double(-1 - repeated)))
        }
        written.append(("K0", 7))
        let text = "{" + written.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + ",\"\\u006b0\":9}"
        var expected: [(String, JSONValue)] = []
        for (key, value) in written + [("k0", 9)] {
            if let index = expected.firstIndex(where: { $0.0 == key }) {
                expected[index].1 = .number(value)
            } else {
                expected.append((key, .number(value)))
            }
        }
        #expect(try JSONValue.parse(text) == .object(expected))
    }

    @Test func encodesNonFiniteNumbersAsNull() {
        #expect(JSONValue.array([.number(.nan), .number(.infinity)]).encoded() == "[null,null]")
    }

    @Test func lineSeparatorsAreEscapedSoALineStaysOneLine() {
        #expect(!JSONValue.string("a\u{2028}b\u{0}c").encoded().contains("\u{2028}"))
        #expect(JSONValue.string("a\u{0}").encoded() == #""a\u0000""#)
    }
}
