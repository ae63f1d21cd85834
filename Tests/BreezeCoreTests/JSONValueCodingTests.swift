import BreezeCore
import Testing

@Suite struct JSONValueCodingTests {
    struct Saved: Codable, Equatable {
        struct City: Codable, Equatable {
            var name: String
            var latitude: Double
            var population: Int?
        }

        var version: Int
        var units: String
        var cities: [City]
        var lastSeen: [String: Double]
        var enabled: Bool
        var note: String?
    }

    static let saved = Saved(
        version: 2, units: "celsius",
        cities: [
            .init(name: "Bern", latitude: Double(Float(46.94809)), population: 121_631),
            .init(name: "Zürich \"ZH\"", latitude: 0.1 + 0.2, population: nil),
        ],
        lastSeen: ["bern": 1_765_000_000.123456], enabled: true, note: nil)

    @Test func roundTripsEveryNumberExactly() throws {
        let text = try JSONValue.encoding(Self.saved).document(indented: false)
        let read = try JSONValue.decode(Saved.self, from: text)
        #expect(read == Self.saved)
        // 46.94809 as a Float is 46.948089599609375 as a Double: written in full, not rounded as protocol lines are.
        #expect(String(decoding: text, as: UTF8.self).contains("46.948089599609375"))
        #expect(String(decoding: text, as: UTF8.self).contains("0.30000000000000004"))
    }

    @Test func writesMembersInTheirDeclaredOrderAndLeavesOutNil() throws {
        let value = try JSONValue.encoding(Self.saved.cities[1])
        #expect(value.encoded() == #"{"name":"Zürich \"ZH\"","latitude":0.3}"#)
    }

    @Test func indentsTwoSpacesALevel() throws {
        let value = JSONValue.object([
            ("a", .array([.number(1), .number(2.5)])), ("b", .object([])), ("c", .array([])), ("d", .null),
        ])
        let expected = """
            {
              "a": [
                1,
                2.5
              ],
              "b": {},
              "c": [],
              "d": null
            }

            """
        #expect(String(decoding: value.document(indented: true), as: UTF8.self) == expected)
    }

    @Test func refusesNumbersJSONCannotHold() {
        #expect(throws: EncodingError.self) { try JSONValue.encoding([Double.infinity]) }
        #expect(throws: EncodingError.self) { try JSONValue.encoding([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValue.encoding([Int64(1 << 53)]) }
        #expect((try? JSONValue.encoding([Int64(1 << 53) - 1])) == .array([.number(9_007_199_254_740_991)]))
    }

    @Test func decodesAnIntegerOnlyWhenTheNumberIsOne() throws {
        #expect(try JSONValue.decode([Int].self, from: Array("[3, 3.0, -0]".utf8)) == [3, 3, 0])
        #expect(try JSONValue.decode([UInt8].self, from: Array("[255]".utf8)) == [255])
        for text in ["[3.5]", "[1e300]", "[-1]"] {
            #expect(throws: DecodingError.self, "\(text)") { try JSONValue.decode([UInt32].self, from: Array(text.utf8)) }
        }
        #expect(throws: DecodingError.self) { try JSONValue.decode([Float].self, from: Array("[1e300]".utf8)) }
        // Past 2^53 a Double cannot tell 9007199254740993 from ...992: refused rather than read as the wrong one.
        #expect(throws: DecodingError.self) {
            try JSONValue.decode([Int64].self, from: Array("[9007199254740993]".utf8))
        }
        #expect(try JSONValue.decode([Int64].self, from: Array("[-9007199254740991]".utf8)) == [1 - (1 << 53)])
    }

    @Test func namesThePathToWhatDoesNotFit() {
        func failure(_ text: String) -> DecodingError? {
            do {
                _ = try JSONValue.decode(Saved.self, from: Array(text.utf8))
                return nil
            } catch {
                return error as? DecodingError
            }
        }
        let valid = #""version":1,"units":"c","lastSeen":{},"enabled":false"#
        guard case .typeMismatch(let type, let context) = failure(#"{\#(valid),"cities":[{"name":"x","latitude":"n"}]}"#)
        else { Issue.record("a string where a number belongs is a type mismatch"); return }
        #expect(type is Double.Type)
        #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["cities", "0", "latitude"])

        guard case .valueNotFound = failure(#"{\#(valid),"cities":null}"#) else {
            Issue.record("null where an array belongs is a missing value"); return
        }
        guard case .keyNotFound(let key, _) = failure(#"{"version":1}"#) else {
            Issue.record("a missing member is a missing key"); return
        }
        #expect(key.stringValue == "units")
        #expect((try? JSONValue.decode(Saved.City.self, from: Array(#"{"name":"x","latitude":1}"#.utf8)))?.population == nil)
    }

    @Test func aRepeatedKeyKeepsTheReadersChoice() throws {
        let city = try JSONValue.decode(Saved.City.self, from: Array(#"{"name":"a","latitude":1,"name":"b"}"#.utf8))
        #expect(city.name == "b")
        #expect(throws: JSONSyntaxError.self) {
            try JSONValue.decode(Saved.City.self, from: Array(#"{"name":"a","latitude":1,"name":"b"}"#.utf8),
                repeatedKeys: .refused)
        }
    }

    @Test func textThatIsNotJSONIsASyntaxError() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.decode(Saved.self, from: Array("{\"version\":".utf8)) }
    }
}
