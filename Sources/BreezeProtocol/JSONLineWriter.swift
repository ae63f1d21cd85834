import BreezeCore

/// Writes one protocol line straight to UTF-8 bytes: the bytes `JSONValue.encodedLine()` gives for the same
/// object, without the object built first. For the answers given most often (`lookup`, `search`), where building
/// the value tree and walking it again cost as much as the rest of the answer.
///
/// Members and elements are written in order; the writer puts in the commas. Nothing checks that objects and arrays
/// are closed: each use writes one fixed shape, and its tests compare it with the `JSONValue` it stands for.
struct JSONLineWriter {
    private var out: [UInt8] = []
    /// True right after an opening bracket or a key: no comma before what comes next.
    private var atStart = true

    init(capacity: Int = 256) {
        out.reserveCapacity(capacity)
    }

    /// The line: the bytes written and a newline.
    consuming func line() -> [UInt8] {
        out.append(0x0A)
        return out
    }

    private mutating func separate() {
        if !atStart { out.append(UInt8(ascii: ",")) }
        atStart = false
    }

    mutating func beginObject() {
        separate()
        out.append(UInt8(ascii: "{"))
        atStart = true
    }

    mutating func endObject() {
        out.append(UInt8(ascii: "}"))
        atStart = false
    }

    mutating func beginArray() {
        separate()
        out.append(UInt8(ascii: "["))
        atStart = true
    }

    mutating func endArray() {
        out.append(UInt8(ascii: "]"))
        atStart = false
    }

    /// A member's key, escaped as any string is.
    mutating func key(_ key: String) {
        separate()
        JSONString.append(key, to: &out)
        out.append(UInt8(ascii: ":"))
        atStart = true
    }

    mutating func string(_ value: String) {
        separate()
        JSONString.append(value, to: &out)
    }

    /// `first`, `separator` and `second` as one string, without making it: the literal of their concatenation.
    mutating func string(_ first: String, _ separator: String, _ second: String) {
        separate()
        guard Self.needsNoEscape(first), Self.needsNoEscape(separator), Self.needsNoEscape(second) else {
            JSONString.append(first + separator + second, to: &out)
            return
        }
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: first.utf8)
        out.append(contentsOf: separator.utf8)
        out.append(contentsOf: second.utf8)
        out.append(UInt8(ascii: "\""))
    }

    /// True when `JSONString` writes `text` as it is, between quotes: no quote, backslash or control character, and
    /// no 0xE2 (which leads U+2028 and U+2029, escaped; `JSONString` takes its slow path for any of them too).
    static func needsNoEscape(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in !bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 } }
    }

    mutating func number(_ value: Double) {
        separate()
        JSONValue.appendNumber(value, to: &out)
    }

    mutating func null() {
        separate()
        out.append(contentsOf: "null".utf8)
    }

    /// Any value, encoded as `JSONValue.encoded()` encodes it.
    mutating func value(_ value: JSONValue) {
        separate()
        value.encode(into: &out)
    }
}
