import BreezeCore

/// Writes one protocol line straight to UTF-8 bytes: the bytes `JSONValue.encodedLine()` gives for the same
/// object, without the object built first. For the answers given most often (`lookup`, `search`), where building
/// the value tree and walking it again cost as much as the rest of the answer.
///
/// The caller writes the punctuation and the keys it knows as raw text (`,"city":`), so that each costs one
/// append; each use writes one fixed shape, and its tests compare it with the `JSONValue` it stands for.
///
/// The bytes go to a buffer of the writer's own, not an array: a search's answer is some 150 appends, and each
/// through `Array.append(contentsOf:)` cost more than the bytes it copied.
struct JSONLineWriter: ~Copyable, JSONOutput {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(byteCount: self.capacity, alignment: 1)
    }

    deinit {
        base.deallocate()
    }

    /// The line: the bytes written and a newline.
    consuming func line() -> [UInt8] {
        append(0x0A)
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }

    mutating func append(_ byte: UInt8) {
        makeRoom(for: 1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        makeRoom(for: bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Grows the buffer, to twice its size or more, when `more` bytes do not fit.
    private mutating func makeRoom(for more: Int) {
        guard count + more > capacity else { return }
        let grown = max(capacity * 2, count + more)
        let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 1)
        larger.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = larger
        capacity = grown
    }

    /// `text` as it is: punctuation, and keys that need no escape.
    mutating func raw(_ text: StaticString) {
        append(text)
    }

    /// A key and its colon, escaped as any string is.
    mutating func key(_ key: String) {
        string(key)
        append(UInt8(ascii: ":"))
    }

    /// The string's literal, as `JSONString` writes it.
    mutating func string(_ value: String) {
        var value = value
        let written = value.withUTF8 { bytes in
            guard Self.needsNoEscape(bytes) else { return false }
            append(UInt8(ascii: "\""))
            append(contentsOf: UnsafeRawBufferPointer(bytes))
            append(UInt8(ascii: "\""))
            return true
        }
        if !written { escaped(value) }
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
                    append(UInt8(ascii: "\""))
                    append(contentsOf: UnsafeRawBufferPointer(firstBytes))
                    append(contentsOf: UnsafeRawBufferPointer(separatorBytes))
                    append(contentsOf: UnsafeRawBufferPointer(secondBytes))
                    append(UInt8(ascii: "\""))
                    return true
                }
            }
        }
        if !written { escaped(first + separator.description + second) }
    }

    /// The string's literal through `JSONString`, for text with something to escape.
    private mutating func escaped(_ value: String) {
        var literal: [UInt8] = []
        JSONString.append(value, to: &literal)
        literal.withUnsafeBytes { append(contentsOf: $0) }
    }

    mutating func number(_ value: Double) {
        JSONValue.appendNumber(value, to: &self)
    }

    /// `number(Double(value))`'s text, without the Double where it is exact: below 1e15, which is where
    /// `appendNumber` writes a whole number's digits too.
    mutating func integer(_ value: Int) {
        if value.magnitude < 1_000_000_000_000_000 {
            JSONValue.appendInteger(Int64(value), to: &self)
        } else {
            number(Double(value))
        }
    }

    mutating func null() {
        raw("null")
    }

    /// Any value, encoded as `JSONValue.encoded()` encodes it.
    mutating func value(_ value: JSONValue) {
        switch value {
        case .string(let text): string(text)
        case .number(let number): self.number(number)
        default:
            var encoded: [UInt8] = []
            value.encode(into: &encoded)
            encoded.withUnsafeBytes { append(contentsOf: $0) }
        }
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
