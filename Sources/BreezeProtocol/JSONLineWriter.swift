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

    @inline(__always) mutating func append(_ byte: UInt8) {
        makeRoom(for: 1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always) mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        makeRoom(for: bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// `bytes` between quotes.
    @inline(__always) private mutating func appendQuoted(_ bytes: UnsafeRawBufferPointer) {
        makeRoom(for: bytes.count + 2)
        base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: count, as: UInt8.self)
        if let source = bytes.baseAddress { (base + count + 1).copyMemory(from: source, byteCount: bytes.count) }
        base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: count + 1 + bytes.count, as: UInt8.self)
        count += bytes.count + 2
    }

    /// Makes room for `more` bytes.
    @inline(__always) private mutating func makeRoom(for more: Int) {
        if count + more > capacity { grow(toHold: more) }
    }

    /// Grows the buffer, to twice its size or more, so that `more` bytes fit.
    @inline(never) private mutating func grow(toHold more: Int) {
        let grown = max(capacity * 2, count + more)
        let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 1)
        larger.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = larger
        capacity = grown
    }

    /// `text` as it is: punctuation, and keys that need no escape.
    @inline(__always) mutating func raw(_ text: StaticString) {
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
            appendQuoted(UnsafeRawBufferPointer(bytes))
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

    /// The literal of the text `bytes` hold, read as `String(decoding:as:)` reads UTF-8 (repairing what is not): as
    /// they are when they are ASCII with nothing to escape, else through `string(_:)`.
    mutating func string(utf8 bytes: UnsafeRawBufferPointer) {
        guard Self.isPlainASCII(bytes) else { return string(String(decoding: bytes, as: UTF8.self)) }
        appendQuoted(bytes)
    }

    /// `string(first, separator, second)` for text as UTF-8 bytes, read as `string(utf8:)` reads them.
    mutating func string(
        utf8 first: UnsafeRawBufferPointer, _ separator: StaticString, _ second: UnsafeRawBufferPointer
    ) {
        let plain = separator.withUTF8Buffer { separatorBytes in
            guard Self.isPlainASCII(first), Self.isPlainASCII(UnsafeRawBufferPointer(separatorBytes)),
                Self.isPlainASCII(second)
            else { return false }
            append(UInt8(ascii: "\""))
            append(contentsOf: first)
            append(contentsOf: UnsafeRawBufferPointer(separatorBytes))
            append(contentsOf: second)
            append(UInt8(ascii: "\""))
            return true
        }
        if !plain {
            string(String(decoding: first, as: UTF8.self), separator, String(decoding: second, as: UTF8.self))
        }
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

    /// True when `JSONString` writes these bytes (valid UTF-8) as they are, between quotes: no quote, backslash or
    /// control character, and no 0xE2 (which leads U+2028 and U+2029; `JSONString` takes its slow path for any such
    /// text).
    static func needsNoEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isWrittenAsIs(UnsafeRawBufferPointer(bytes), asciiOnly: false)
    }

    /// True for ASCII that `JSONString` writes as it is: bytes that are the same text whether or not they were
    /// checked as UTF-8, so that they need no decoding to be written.
    @inline(__always) static func isPlainASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        isWrittenAsIs(bytes, asciiOnly: true)
    }

    /// `needsNoEscape`, and with `asciiOnly` no byte of 0x80 or above either: eight bytes at a time, the last eight
    /// read again where they overlap the word before (a byte read twice changes no answer), and text shorter than
    /// eight read as one word with spaces around it, so that no byte costs a test of its own.
    @inline(__always) private static func isWrittenAsIs(_ bytes: UnsafeRawBufferPointer, asciiOnly: Bool) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        let count = bytes.count
        guard count >= 8 else { return isWrittenAsIs(shortWord(base, count: count), asciiOnly: asciiOnly) }
        var index = 0
        while index + 8 < count {
            guard isWrittenAsIs(base.loadUnaligned(fromByteOffset: index, as: UInt64.self), asciiOnly: asciiOnly)
            else { return false }
            index += 8
        }
        return isWrittenAsIs(base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), asciiOnly: asciiOnly)
    }

    /// The 1 to 7 bytes at `base` in one word, some of them twice, the rest spaces: read in two loads that overlap,
    /// never past the last byte.
    @inline(__always) private static func shortWord(_ base: UnsafeRawPointer, count: Int) -> UInt64 {
        let spaces: UInt64 = 0x2020_2020_2020_2020
        if count >= 4 {
            let first = UInt64(base.loadUnaligned(as: UInt32.self))
            let last = UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            return first | last << 32
        }
        if count >= 2 {
            let first = UInt64(base.loadUnaligned(as: UInt16.self))
            let last = UInt64(base.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self))
            return first | last << 16 | spaces << 32
        }
        return UInt64(base.load(as: UInt8.self)) | spaces << 8
    }

    /// `isWrittenAsIs` for the eight bytes of `word`.
    @inline(__always) private static func isWrittenAsIs(_ word: UInt64, asciiOnly: Bool) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        let control = (word &- ones &* 0x20) & ~word & highs != 0  // a byte below 0x20
        return
            !(control || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
            || hasZeroByte(word ^ (ones &* 0xE2)) || (asciiOnly && word & highs != 0))
    }
}
