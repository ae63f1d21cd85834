import BreezeCore

/// Writes one protocol line straight to UTF-8 bytes: the bytes `JSONValue.encodedLine()` gives for the same
/// object, without the object built first. For the answers given most often (`lookup`, `search`), where building
/// the value tree and walking it again cost as much as the rest of the answer.
///
/// The caller writes the punctuation and the keys it knows as raw text (`,"city":`), so that each costs one
/// append; each use writes one fixed shape, and its tests compare it with the `JSONValue` it stands for.
struct JSONLineWriter {
    private var out: [UInt8] = []

    init(capacity: Int) {
        out.reserveCapacity(capacity)
    }

    /// The line: the bytes written and a newline.
    consuming func line() -> [UInt8] {
        out.append(0x0A)
        return out
    }

    /// `text` as it is: punctuation, and keys that need no escape.
    mutating func raw(_ text: StaticString) {
        // withUTF8Buffer: a one-character literal is stored as a scalar, without a pointer to its bytes.
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// A key and its colon, escaped as any string is.
    mutating func key(_ key: String) {
        string(key)
        out.append(UInt8(ascii: ":"))
    }

    /// The string's literal, as `JSONString` writes it.
    mutating func string(_ value: String) {
        var value = value
        let written = value.withUTF8 { bytes in
            guard Self.needsNoEscape(bytes) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if !written { JSONString.append(value, to: &out) }
    }

    /// `first`, `separator` and `second` as one string, without making it: the literal of their concatenation.
    mutating func string(_ first: String, _ separator: StaticString, _ second: String) {
        var first = first
        var second = second
        let written = first.withUTF8 { firstBytes in
            second.withUTF8 { secondBytes in
                separator.withUTF8Buffer { separatorBytes in
                    guard Self.needsNoEscape(firstBytes), Self.needsNoEscape(separatorBytes),
                        Self.needsNoEscape(secondBytes)
                    else { return false }
                    out.append(UInt8(ascii: "\""))
                    out.append(contentsOf: firstBytes)
                    out.append(contentsOf: separatorBytes)
                    out.append(contentsOf: secondBytes)
                    out.append(UInt8(ascii: "\""))
                    return true
                }
            }
        }
        if !written { JSONString.append(first + separator.description + second, to: &out) }
    }

    mutating func number(_ value: Double) {
        JSONValue.appendNumber(value, to: &out)
    }

    mutating func null() {
        raw("null")
    }

    /// Any value, encoded as `JSONValue.encoded()` encodes it.
    mutating func value(_ value: JSONValue) {
        value.encode(into: &out)
    }

    /// True when `JSONString` writes these bytes as they are, between quotes: no quote, backslash or control
    /// character, and no 0xE2 (which leads U+2028 and U+2029; `JSONString` takes its slow path for any such text).
    /// Eight bytes at a time: each test below is true when some byte of the word matches, never false then.
    static func needsNoEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var index = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let control = (word &- ones &* 0x20) & ~word & highs != 0  // a byte below 0x20
                if control || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
                    || hasZeroByte(word ^ (ones &* 0xE2))
                {
                    return false
                }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2 { return false }
            index += 1
        }
        return true
    }
}
