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
        out.reserveCapacity(1_024)
        encode(into: &out)
        out.append(0x0A)
        return out
    }

    /// Appends the compact encoding's UTF-8 bytes to `out`.
    public func encode(into out: inout [UInt8]) {
        write(into: &out, exact: false, indent: nil)
    }

    /// JSON text for a file the daemon keeps and reads back (the state, the cache): numbers written exactly, so
    /// what is read is what was written (protocol lines round them to nine decimals instead); two spaces a level
    /// when `indented`, for a file people may read. Ends with a newline.
    public func document(indented: Bool) -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, exact: true, indent: indented ? 0 : nil)
        out.append(0x0A)
        return out
    }

    /// Writes the value: numbers exactly (`exactFormat`) or rounded (`format`); `indent` is the current level when
    /// indenting, nil for compact text.
    private func write(into out: inout [UInt8], exact: Bool, indent: Int?) {
        /// Before a member or element: a newline and the indentation of the level inside, when indenting.
        func newline(_ level: Int?) {
            guard let level else { return }
            out.append(0x0A)
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
        }
        let inner = indent.map { $0 + 1 }
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): out.append(contentsOf: (exact ? Self.exactFormat(value) : Self.format(value)).utf8)
        case .string(let value): JSONString.append(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (i, value) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(inner)
                value.write(into: &out, exact: exact, indent: inner)
            }
            if !values.isEmpty { newline(indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(inner)
                JSONString.append(key, to: &out)
                out.append(contentsOf: (indent == nil ? ":" : ": ").utf8)
                value.write(into: &out, exact: exact, indent: inner)
            }
            if !members.isEmpty { newline(indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A number as Swift writes it, which reads back as the same `Double`; integers without a fraction.
    private static func exactFormat(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if abs(value) < 1e15, Double(Int64(value)) == value { return String(Int64(value)) }
        return String(value)
    }

    /// Integers print without a fraction; other numbers rounded to nine decimals (binary noise trimmed: 46.498319544
    /// stays, 0.1 + 0.2 prints as 0.3), and very small or large ones as Swift writes them; non-finite as null.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let magnitude = abs(value)
        // Below 1e15 the truncation is exact, and equal to the value only when it is whole.
        if magnitude < 1e15, Double(Int64(value)) == value { return String(Int64(value)) }
        let rounded = (value * 1e9).rounded() / 1e9
        // From 0.001 to 1e15 Swift writes a Double in decimal, never with an exponent.
        if magnitude >= 1e-3, magnitude < 1e15 { return String(rounded) }
        let text = String(value)
        return text.contains("e") ? text : String(rounded)
    }
}
