import BreezeCore
import BreezeProtocol
import Testing

/// The number format of every line against the format as the protocol has always written it.
@Suite struct ReplyLineTests {
    /// The number format as the protocol first wrote it, kept here as the reference.
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

    /// From 0.001 up to a million (coordinates, distances): the same text for any number of decimals, halfway
    /// billionths, Float-rounded values, and either side of each bound.
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
}

/// An id spliced into an encoded object line against the object made a reply and encoded.
@Suite struct ReplyLineIDTests {
    static let objects: [JSONValue] = [
        .object([]),
        ProtocolMessage.version(release: "1.0"),
        ProtocolMessage.version(release: "1.0", extra: [("mqtt", .object([("state", .string("connected"))]))]),
        .object([
            ("class", .string("LOCATION")), ("name", .string("Zürich, \"CH\"")), ("list", .array([.number(-1.5)])),
        ]),
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
                #expect(
                    spliced == expected,
                    "\(String(decoding: spliced, as: UTF8.self)) against \(String(decoding: expected, as: UTF8.self))")
            }
        }
    }

    @Test func whatIsNotAnObjectLineIsLeftAsItIs() {
        for line in ["[1,2]\n", "\"}\"\n", "{\"a\":1}", "}\n", ""].map({ Array($0.utf8) }) {
            #expect(ProtocolMessage.replyLine(line, id: .number(1)) == line)
        }
    }
}
