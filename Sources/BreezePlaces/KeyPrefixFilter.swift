/// Which starts the search keys of an index have: the slip search asks it before searching for a slipped name, and
/// most slipped names start in a way no key does.
///
/// Bytes count as 28 symbols: 'a'…'z', the space, and one for every other byte (digits and the bytes of non-ASCII
/// letters share it). One bit for each four-symbol start (28⁴ bits, 75 KiB), and the five-symbol starts hashed into
/// 2²¹ bits (256 KiB) with one hash. A clear bit is certain — no key starts with those bytes — and a set bit only
/// means one may. Built by one pass over the keys' first bytes the first time an index is slip-searched.
struct KeyPrefixFilter: Sendable {
    /// How many leading bytes of a name the filter knows (the four-symbol bitmap knows one fewer).
    static let length = 5
    private static let symbols = 28
    private static let bitCount = symbols * symbols * symbols * symbols
    private static let hashedBits = 21

    private let words: [UInt64]
    private let hashed: [UInt64]

    /// The filter of every key in `keys` (the index's key count of them) that has at least `length` bytes.
    init(keys: KeyTable, count: Int) {
        var words = [UInt64](repeating: 0, count: (Self.bitCount + 63) / 64)
        var hashed = [UInt64](repeating: 0, count: (1 << Self.hashedBits) / 64)
        words.withUnsafeMutableBufferPointer { words in
            hashed.withUnsafeMutableBufferPointer { hashed in
                for key in 0..<count {
                    let bytes = keys.bytes(key)
                    guard bytes.count >= Self.length - 1 else { continue }
                    let bit = Self.bit(bytes[0], bytes[1], bytes[2], bytes[3])
                    words[bit >> 6] |= 1 << UInt64(bit & 63)
                    guard bytes.count >= Self.length else { continue }
                    let slot = Self.slot(bit, bytes[4])
                    hashed[slot >> 6] |= 1 << UInt64(slot & 63)
                }
            }
        }
        self.words = words
        self.hashed = hashed
    }

    /// False when no key starts with the first four or five bytes of `name`; true when one may, or when `name` is
    /// shorter than four bytes.
    @inline(__always) func mayStart(_ name: UnsafeRawBufferPointer) -> Bool {
        guard name.count >= Self.length - 1 else { return true }
        let bit = Self.bit(name[0], name[1], name[2], name[3])
        guard words[bit >> 6] & (1 << UInt64(bit & 63)) != 0 else { return false }
        guard name.count >= Self.length else { return true }
        let slot = Self.slot(bit, name[4])
        return hashed[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    /// The bytes this filter keeps in memory.
    var byteCount: Int { (words.count + hashed.count) * 8 }

    @inline(__always) private static func symbol(_ byte: UInt8) -> Int {
        switch byte {
        case 0x61...0x7A: Int(byte - 0x61)
        case 0x20: 26
        default: 27
        }
    }

    /// The five-symbol start's bit in `hashed`: the top bits of a multiplicative hash.
    @inline(__always) private static func slot(_ fourSymbols: Int, _ e: UInt8) -> Int {
        let start = UInt64(fourSymbols * symbols + symbol(e))
        return Int(truncatingIfNeeded: (start &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - hashedBits))
    }

    @inline(__always) private static func bit(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Int {
        ((symbol(a) * symbols + symbol(b)) * symbols + symbol(c)) * symbols + symbol(d)
    }
}
