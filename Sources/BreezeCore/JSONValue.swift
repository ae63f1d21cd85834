import BreezeCore

/// A JSON value: what protocol lines carry. Encodes compactly with keys in a fixed order, so equal values give
/// equal lines (one encoding shared by every subscriber).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Keys keep the order given.
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(encoded())
    }

    /// The member `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// Compact JSON text, no newline.
    public func encoded() -> String {
        var out: [UInt8] = []
        encode(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The encoding as one protocol line: its UTF-8 bytes and a newline.
    public func encodedLine() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        encode(into: &out)
        out.append(0x0A)
        return out
    }

    /// Encodes into bytes rather than a String: appending small pieces to a String costs several times more.
    func encode(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): Self.appendNumber(value, to: &out)
        case .string(let value): JSONString.append(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (i, value) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                value.encode(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONString.append(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.encode(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Integers print without a fraction; other numbers with up to 7 significant decimals; non-finite as null.
    static func format(_ value: Double) -> String {
        var out: [UInt8] = []
        appendNumber(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `format(value)`'s text to `out`, digits written straight to the bytes where it can: a reply's
    /// numbers (ids, populations, coordinates) are most of what encoding it costs.
    static func appendNumber<Output: JSONOutput & ~Copyable>(_ value: Double, to out: inout Output) {
        guard value.isFinite else {
            out.append("null")
            return
        }
        let magnitude = abs(value)
        // Below 1e15 the truncation is exact, and equal to the value only when it is whole.
        if magnitude < 1e15, Double(Int64(value)) == value {
            appendInteger(Int64(value), to: &out)
            return
        }
        // Trim binary noise: 46.498319544 stays, 0.1 + 0.2 prints as 0.3. From 0.001 to 1e15 Swift writes a Double
        // in decimal, never with an exponent, so the unrounded text need not be made to look for an "e".
        if magnitude >= 1e-3, magnitude < 1e6 {
            appendNanos(roundedNanos(value), to: &out)
            return
        }
        let rounded = (value * 1e9).rounded() / 1e9
        if magnitude >= 1e-3, magnitude < 1e15 {
            out.append(String(rounded))
            return
        }
        let text = String(value)
        out.append(text.contains("e") ? text : String(rounded))
    }

    /// Appends `nanos` billionths as Swift writes the Double nearest to them (`String(nanos / 1e9)`), for
    /// 1e6 ≤ |nanos| < 1e15: the digits with the fraction's trailing zeros dropped, ".0" for a whole number. A
    /// coordinate is written this way twice in each place of an answer; through `String` it cost a search's answer
    /// half of its encoding.
    ///
    /// Why it is the same text: the decimal has at most 15 significant digits, and two such decimals differ by more
    /// than the spacing of Doubles there, so no shorter or other decimal of its length names the same Double, and
    /// the shortest text that names that Double, which Swift writes, is this one.
    private static func appendNanos<Output: JSONOutput & ~Copyable>(_ nanos: Int64, to out: inout Output) {
        let whole = nanos.magnitude / 1_000_000_000
        var fraction = nanos.magnitude % 1_000_000_000
        var digits = 9
        if fraction == 0 {
            digits = 1  // "x.0"
        } else {
            // Two zeros a step, then the one left: a coordinate from the index has four or more.
            while fraction % 100 == 0 {
                fraction /= 100
                digits -= 2
            }
            if fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
        }
        // Written from the end into a buffer, appended once: a sign, at most 7 whole digits (rounding can bring the
        // whole part up to 1e6), the point, and the fraction's `digits` digits, its leading zeros among them.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            var start = writeDigits(fraction, count: digits, before: buffer.count, in: buffer)
            start -= 1
            buffer[start] = UInt8(ascii: ".")
            start = writeDigits(whole, before: start, in: buffer)
            if nanos < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// `Int64((value * 1e9).rounded())` for |value| < 1e6, without the C library's `round`: below 2^53 what is left
    /// after truncating is exact, so comparing it with a half rounds halves away from zero, as `rounded()` does.
    private static func roundedNanos(_ value: Double) -> Int64 {
        let scaled = value * 1e9
        var nanos = Int64(scaled)
        let rest = scaled - Double(nanos)
        if rest >= 0.5 {
            nanos += 1
        } else if rest <= -0.5 {
            nanos -= 1
        }
        return nanos
    }

    /// Appends the decimal digits of `value`, a minus sign first when it is negative.
    static func appendInteger<Output: JSONOutput & ~Copyable>(_ value: Int64, to out: inout Output) {
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for a sign and the 20 digits a UInt64 can have
        withUnsafeMutableBytes(of: &text) { buffer in
            var start = writeDigits(value.magnitude, before: buffer.count, in: buffer)
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            // Rebased: a slice of the buffer would be appended a byte at a time through an iterator; a buffer is copied
            // at once.
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes the decimal digits of `value` (at least one) so that they end before `end` in `buffer`, which must
    /// have room for them; returns where they start. Two digits a step: a division costs as much for two as for one.
    @inline(__always) private static func writeDigits(
        _ value: UInt64, before end: Int, in buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        var rest = value
        var start = end
        while rest >= 100 {
            start -= 2
            writePair(rest % 100, at: start, in: buffer)
            rest /= 100
        }
        if rest >= 10 {
            start -= 2
            writePair(rest, at: start, in: buffer)
        } else {
            start -= 1
            buffer[start] = UInt8(ascii: "0") | UInt8(truncatingIfNeeded: rest)
        }
        return start
    }

    /// Writes the last `count` decimal digits of `value`, leading zeros among them, to end before `end`; returns
    /// where they start.
    @inline(__always) private static func writeDigits(
        _ value: UInt64, count: Int, before end: Int, in buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        var rest = value
        var start = end
        var left = count
        while left >= 2 {
            start -= 2
            writePair(rest % 100, at: start, in: buffer)
            rest /= 100
            left -= 2
        }
        if left == 1 {
            start -= 1
            buffer[start] = UInt8(ascii: "0") | UInt8(truncatingIfNeeded: rest % 10)
        }
        return start
    }

    /// Writes `pair` (0–99) as two digits at `at`.
    @inline(__always) private static func writePair(_ pair: UInt64, at: Int, in buffer: UnsafeMutableRawBufferPointer) {
        buffer[at] = UInt8(ascii: "0") | UInt8(truncatingIfNeeded: pair / 10)
        buffer[at + 1] = UInt8(ascii: "0") | UInt8(truncatingIfNeeded: pair % 10)
    }

    /// Parses one JSON text (RFC 8259; nesting at most 64 deep). Throws `ProtocolError` (`malformed-json`) saying
    /// where it went wrong.
    public static func parse(_ text: String) throws(ProtocolError) -> JSONValue {
        var parser = JSONParser(Array(text.utf8))
        return try parser.parseDocument()
    }
}
