/// Which four-letter starts the search keys of an index have, one bit each: the slip search asks it before searching
/// for a slipped name, and most slipped names start in a way no key does.
///
/// Bytes count as 28 symbols: 'a'…'z', the space, and one for every other byte (digits and the bytes of non-ASCII
/// letters share it), so a clear bit is certain — no key starts with those four bytes — and a set bit only means one
/// may. 28⁴ bits: 75 KiB, built by one pass over the keys' first bytes the first time an index is slip-searched.
struct KeyPrefixFilter: Sendable {
    /// How many leading bytes of a name the filter knows.
    static let length = 4
    private static let symbols = 28
    private static let bitCount = symbols * symbols * symbols * symbols

    private let words: [UInt64]

    /// The filter of every key in `keys` (the index's key count of them) that has at least `length` bytes.
    init(keys: KeyTable, count: Int) {
        var words = [UInt64](repeating: 0, count: (Self.bitCount + 63) / 64)
        words.withUnsafeMutableBufferPointer { words in
            for key in 0..<count {
                let bytes = keys.bytes(key)
                guard bytes.count >= Self.length else { continue }
                let bit = Self.bit(bytes[0], bytes[1], bytes[2], bytes[3])
                words[bit >> 6] |= 1 << UInt64(bit & 63)
            }
        }
        self.words = words
    }

    /// False when no key starts with the first `length` bytes of `name`; true when one may, or when `name` is shorter.
    @inline(__always) func mayStart(_ name: UnsafeRawBufferPointer) -> Bool {
        guard name.count >= Self.length else { return true }
        let bit = Self.bit(name[0], name[1], name[2], name[3])
        return words[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    /// The bytes this filter keeps in memory.
    var byteCount: Int { words.count * 8 }

    @inline(__always) private static func symbol(_ byte: UInt8) -> Int {
        switch byte {
        case 0x61...0x7A: Int(byte - 0x61)
        case 0x20: 26
        default: 27
        }
    }

    @inline(__always) private static func bit(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Int {
        ((symbol(a) * symbols + symbol(b)) * symbols + symbol(c)) * symbols + symbol(d)
    }
}
