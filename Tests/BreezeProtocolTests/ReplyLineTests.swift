import BreezeCore
import BreezeProtocol
import Testing

/// The answers encoded straight to bytes (`placeLine`, `placesLine`, numbers written digit by digit) against the
/// encoding they stand for: the `JSONValue` answer made a reply and encoded, and the number format as it was.
@Suite struct ReplyLineTests {
    /// The number format before digits were written straight to bytes, kept here as the reference.
    static func referenceFormat(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(value)
        if text.contains("e") { return text }
        let rounded = (value * 1e9).rounded() / 1e9
        text = String(rounded)
        return text
    }

    /// A fixed sequence of pseudo-random numbers (SplitMix64), so that a failure can be run again.
    struct Numbers {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    }

    static let edges: [Double] = [
        0, -0.0, 1, -1, 0.1 + 0.2, 46.94809, 7.44744, -33.86785, 1e-3, 0.00099999, 0.0010000001, -1e-3, 1e-4, 1e-5,
        .leastNonzeroMagnitude, 1e15, 1e15 - 0.5, 999_999_999_999_999, 999_999_999_999_999.9, 1e15 + 0.5, 1e16, 1e21,
        9.007199254740993e15,
        -1e15 + 0.25, 123_456.789012345, 0.5, -0.5, 2.5, Double.greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNormalMagnitude, .infinity, -.infinity, .nan, Double(Float(46.948)), Double(Float(-122.4194)),
        Double(Int64.max), Double(Int64.min), 1e-9, 1.5e-9, 4.9999999999e-10, 1234567.0000000001,
    ]

    @Test func numbersAreWrittenAsTheyWere() {
        for value in Self.edges {
            #expect(JSONValue.number(value).encoded() == Self.referenceFormat(value), "\(value)")
        }
        // Magnitudes from 1e-12 to 1e20, whole and fractional, Float-rounded like the index's coordinates.
        let mismatches = Self.mismatches(200_000, seed: 19, exponents: -12..<20) { value, way, _ in
            switch way {
            case 0: value.rounded()
            case 1: Double(Float(value))
            case 2: (value * 1e5).rounded() / 1e5
            default: value
            }
        }
        #expect(mismatches.isEmpty, "first: \(mismatches.prefix(5))")
    }

    /// Of `count` values drawn from `seed` (each a power of ten with its exponent in `exponents`, either sign, then
    /// changed by `shape` in one of four ways: its second argument, 0 to 3), those that `encoded()` does not write
    /// as `referenceFormat` does.
    static func mismatches(
        _ count: Int, seed: UInt64, exponents: Range<Double>, shape: (Double, UInt64, inout Numbers) -> Double
    ) -> [Double] {
        var numbers = Numbers(state: seed)
        var mismatches: [Double] = []
        for _ in 0..<count {
            let exponent = exponents.lowerBound + numbers.unit() * (exponents.upperBound - exponents.lowerBound)
            let sign: Double = numbers.next() & 1 == 0 ? 1 : -1
            let way = numbers.next() % 4
            let value = shape(sign * Self.pow10(exponent), way, &numbers)
            if JSONValue.number(value).encoded() != Self.referenceFormat(value) { mismatches.append(value) }
        }
        return mismatches
    }

    /// From 0.001 up to a million the digits are written without `String` (coordinates, distances): the same text,
    /// for any number of decimals, halfway billionths, Float-rounded values, and either side of each bound.
    @Test func fractionsBelowAMillionAreWrittenAsTheyWere() {
        var mismatches = Self.mismatches(300_000, seed: 23, exponents: -3..<6) { value, way, numbers in
            switch way {
            case 0:
                let decimals = Self.pow10(Double(numbers.next() % 13))
                return (value * decimals).rounded() / decimals
            case 1: return Double(Float(value))
            case 2: return ((value * 1e9).rounded() + 0.5) / 1e9
            default: return value
            }
        }
        for bound in [1e-3, 1e6] {
            var below = bound
            var above = bound
            for _ in 0..<64 {
                below = below.nextDown
                above = above.nextUp
                for value in [below, above, -below, -above]
                where JSONValue.number(value).encoded() != Self.referenceFormat(value) {
                    mismatches.append(value)
                }
            }
        }
        #expect(mismatches.isEmpty, "first: \(mismatches.prefix(5))")
    }

    static func pow10(_ exponent: Double) -> Double {
        var result = 1.0
        var whole = Int(exponent.rounded(.down))
        let base = whole < 0 ? 0.1 : 10.0
        whole = abs(whole)
        for _ in 0..<whole { result *= base }
        return result * (1 + (exponent - exponent.rounded(.down)) * 9)
    }

    static let names = [
        "Bern", "Zürich", "Saint-Étienne", "", "a \"quoted\" name", "back\\slash", "line\nbreak", "tab\t",
        "\u{01}control", "sep\u{2028}arator", "para\u{2029}", "🏔 Alp", "東京", "–dash", "x\u{7F}del",
        "é\u{0301}",
    ]

    static func place(_ numbers: inout Numbers) -> Place {
        Place(
            id: numbers.pick([0, 2_661_552, 1, -5, Int(numbers.next() % 20_000_000), 9_007_199_254_740_993]),
            name: numbers.pick(names), admin1: numbers.next() % 3 == 0 ? nil : numbers.pick(names),
            country: numbers.pick(names), countryCode: numbers.pick(["CH", "", "\"", "ü"]),
            population: numbers.pick([0, 121_631, Int(numbers.next() % 40_000_000), 1 << 60]),
            coordinate: Coordinate(
                latitude: Double(Float(numbers.unit() * 180 - 90)), longitude: numbers.unit() * 360 - 180))
    }

    static let ids: [JSONValue?] = [
        nil, .number(1), .number(0), .number(-3), .number(1.5), .number(1e20), .string("a"), .string(""),
        .string("with \"quotes\" and \\"), .string("line\nend"), .string("é🏔\u{2028}"),
    ]

    static func text(_ line: [UInt8]) -> String { String(decoding: line, as: UTF8.self) }

    @Test func aPlaceLineIsThePlaceAnsweredAndEncoded() {
        var numbers = Numbers(state: 7)
        for _ in 0..<5_000 {
            let place = Self.place(&numbers)
            let distance: Double? = numbers.pick([nil, 0, 12.4, 12.5, 12_345.678, 1e16, .nan, -0.4])
            let id = numbers.pick(Self.ids)
            let expected = ProtocolMessage.reply(ProtocolMessage.place(place, distance: distance), id: id).encodedLine()
            let line = ProtocolMessage.placeLine(place, distance: distance, id: id)
            let same = line == expected  // bytes, not Strings: those compare equal when canonically equivalent
            #expect(same, "wanted \(Self.text(expected)), got \(Self.text(line))")
            if !same { return }
        }
    }

    /// Text is checked eight bytes at a time: a character to escape is found at every place in a word and after it.
    @Test func aCharacterToEscapeIsFoundWhereverItIs() {
        for special in ["\"", "\\", "\n", "\u{1F}", "\u{2028}", "\u{2029}", "é", "\u{7F}", "🏔"] {
            for length in 1...20 {
                for position in 0..<length {
                    let text = String(repeating: "a", count: position) + special
                        + String(repeating: "b", count: length - position - 1)
                    let place = Place(
                        id: 1, name: text, admin1: text, country: position % 2 == 0 ? text : "CH", countryCode: text,
                        population: 1, coordinate: Coordinate(latitude: 1, longitude: 2))
                    let expected = ProtocolMessage.reply(ProtocolMessage.place(place, distance: 3), id: .string(text))
                    let line = ProtocolMessage.placeLine(place, distance: 3, id: .string(text))
                    let same = line == expected.encodedLine()
                    #expect(same, "\(special.unicodeScalars.first!.value) at \(position) of \(length)")
                }
            }
        }
    }

    /// The writer starts with room for a usual answer and grows, more than once, for a longer one.
    @Test func aLineLongerThanItsFirstRoomIsWrittenWhole() {
        for length in [200, 255, 256, 257, 1_000, 5_000] {
            let name = String(repeating: "ä", count: length / 2) + String(repeating: "n", count: length - length / 2)
            let place = Place(
                id: 7, name: name, admin1: name, country: "Schweiz", countryCode: "CH", population: 3,
                coordinate: Coordinate(latitude: 46.9, longitude: 7.4))
            let expected = ProtocolMessage.reply(ProtocolMessage.place(place, distance: 1), id: .number(1)).encodedLine()
            let line = ProtocolMessage.placeLine(place, distance: 1, id: .number(1))
            #expect(line == expected, "\(length): \(line.count) bytes, wanted \(expected.count)")
        }
    }

    /// Text as bytes from a place kept on disk: any bytes at all, valid UTF-8 or not.
    static let byteTexts: [[UInt8]] = names.map { Array($0.utf8) } + [
        [0xFF], [0x42, 0xC3], [0xC3, 0x28, 0x61], [0xE2, 0x80], [0xE2, 0x80, 0xA8, 0x41], [0xED, 0xA0, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0x61, 0x00, 0x62], Array("Aarau, ".utf8) + [0xC0, 0xAF], [0x80, 0x80, 0x80],
        Array(repeating: 0x41, count: 15) + [0xFE], Array("Switzerland".utf8),
    ]

    /// A place written from bytes (`PlaceText`, as a search writes its places from the index) is the place those
    /// bytes read as strings (repaired where they are not UTF-8), answered and encoded.
    @Test func aPlacesLineWrittenFromBytesIsThePlacesTheyReadAs() {
        var numbers = Numbers(state: 13)
        for _ in 0..<2_000 {
            let texts = (0..<Int(numbers.next() % 12)).map { _ in
                (name: numbers.pick(Self.byteTexts), admin1: numbers.next() % 3 == 0 ? nil : numbers.pick(Self.byteTexts),
                 country: numbers.pick(Self.byteTexts), code: numbers.pick(Self.byteTexts),
                 place: Self.place(&numbers))
            }
            let places = texts.map { text in
                var place = text.place
                place.name = String(decoding: text.name, as: UTF8.self)
                place.admin1 = text.admin1.map { String(decoding: $0, as: UTF8.self) }
                place.country = String(decoding: text.country, as: UTF8.self)
                place.countryCode = String(decoding: text.code, as: UTF8.self)
                return place
            }
            let id = numbers.pick(Self.ids)
            let extra: [(String, JSONValue)] = [("query", .string("q")), ("online", .string("off"))]
            let expected = ProtocolMessage.reply(ProtocolMessage.places(places, extra: extra), id: id).encodedLine()
            let line = ProtocolMessage.placesLine(expectedCount: 1, extra: extra, id: id) { write in
                for text in texts {
                    text.name.withUnsafeBytes { name in
                        text.country.withUnsafeBytes { country in
                            text.code.withUnsafeBytes { code in
                                func lend(admin1: UnsafeRawBufferPointer?) {
                                    write(PlaceText(
                                        id: text.place.id, name: name, admin1: admin1, country: country, countryCode: code,
                                        population: text.place.population, coordinate: text.place.coordinate))
                                }
                                if let admin1 = text.admin1 { admin1.withUnsafeBytes { lend(admin1: $0) } } else {
                                    lend(admin1: nil)
                                }
                            }
                        }
                    }
                }
            }
            let same = line == expected
            #expect(same, "wanted \(Self.text(expected)), got \(Self.text(line))")
            if !same { return }
        }
    }

    @Test func aPlacesLineIsThePlacesAnsweredAndEncoded() {
        let extras: [[(String, JSONValue)]] = [
            [], [("class", .string("SAVED"))], [("query", .string("bern")), ("online", .string("off"))],
            [("query", .string("a \"b\"\n")), ("online", .string("failed: over-budget"))],
            [("id", .number(9)), ("class", .string("ONE")), ("class", .string("TWO"))], [("x", .null)],
            [("nested", .object([("a", .array([.bool(true), .number(0.25)]))]))],
        ]
        var numbers = Numbers(state: 11)
        for _ in 0..<2_000 {
            let places = (0..<Int(numbers.next() % 12)).map { _ in Self.place(&numbers) }
            let extra = numbers.pick(extras)
            let id = numbers.pick(Self.ids)
            let expected = ProtocolMessage.reply(ProtocolMessage.places(places, extra: extra), id: id).encodedLine()
            let line = ProtocolMessage.placesLine(places, extra: extra, id: id)
            let same = line == expected  // bytes, not Strings: those compare equal when canonically equivalent
            #expect(same, "wanted \(Self.text(expected)), got \(Self.text(line))")
            if !same { return }
        }
    }
}

/// An id spliced into an encoded object line against the object made a reply and encoded.
@Suite struct ReplyLineIDTests {
    static let objects: [JSONValue] = [
        .object([]),
        ProtocolMessage.version(release: "1.0"),
        ProtocolMessage.version(release: "1.0", extra: [("mqtt", .object([("state", .string("connected"))]))]),
        .object([("class", .string("LOCATION")), ("name", .string("Zürich, \"CH\"")), ("list", .array([.number(-1.5)]))]),
    ]
    static let ids: [JSONValue?] = [
        nil, .null, .number(0), .number(-7), .number(1.5), .number(9_007_199_254_740_992), .string(""),
        .string("a \"quoted\" \\ id\n"), .bool(true), .array([.number(1), .string("x")]), .object([("k", .null)]),
    ]

    @Test func anIDSplicedInIsTheObjectAnsweredAndEncoded() {
        for object in Self.objects {
            for id in Self.ids {
                let spliced = ProtocolMessage.replyLine(object.encodedLine(), id: id)
                let expected = ProtocolMessage.reply(object, id: id).encodedLine()
                #expect(spliced == expected, "\(String(decoding: spliced, as: UTF8.self)) against \(String(decoding: expected, as: UTF8.self))")
            }
        }
    }

    @Test func whatIsNotAnObjectLineIsLeftAsItIs() {
        for line in ["[1,2]\n", "\"}\"\n", "{\"a\":1}", "}\n", ""].map({ Array($0.utf8) }) {
            #expect(ProtocolMessage.replyLine(line, id: .number(1)) == line)
        }
    }
}
