/// A set of file descriptors, one bit each.
///
/// Descriptors are small integers the kernel hands out lowest-first, so a bit per descriptor is a set with no
/// hashing: the socket loop marks and clears clients several times a request, and a `Set<Int32>` spent a hash and,
/// once emptied, a new allocation on each. Members are visited in ascending order.
public struct DescriptorSet: Sequence {
    private var words: [UInt64] = []
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public func contains(_ fd: Int32) -> Bool {
        guard fd >= 0 else { return false }
        let (word, bit) = Self.place(of: fd)
        return word < words.count && words[word] & bit != 0
    }

    /// Adds `fd`; returns whether it was not there before.
    @discardableResult
    public mutating func insert(_ fd: Int32) -> Bool {
        precondition(fd >= 0, "a descriptor is never negative")
        let (word, bit) = Self.place(of: fd)
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word + 1 - words.count)) }
        guard words[word] & bit == 0 else { return false }
        words[word] |= bit
        count += 1
        return true
    }

    /// Removes `fd`; returns whether it was there.
    @discardableResult
    public mutating func remove(_ fd: Int32) -> Bool {
        guard contains(fd) else { return false }
        let (word, bit) = Self.place(of: fd)
        words[word] &= ~bit
        count -= 1
        return true
    }

    public mutating func formUnion(_ descriptors: some Sequence<Int32>) {
        for fd in descriptors { insert(fd) }
    }

    /// Empties the set, keeping its room: a set emptied every turn of the loop allocates nothing.
    public mutating func removeAll() {
        guard count > 0 else { return }
        for index in words.indices where words[index] != 0 { words[index] = 0 }
        count = 0
    }

    private static func place(of fd: Int32) -> (word: Int, bit: UInt64) {
        (Int(fd) >> 6, 1 << UInt64(fd & 63))
    }

    public func makeIterator() -> Iterator {
        Iterator(words: words)
    }

    /// Visits the members in ascending order, a word at a time.
    public struct Iterator: IteratorProtocol {
        fileprivate let words: [UInt64]
        private var index = 0
        private var current: UInt64

        fileprivate init(words: [UInt64]) {
            self.words = words
            current = words.first ?? 0
        }

        public mutating func next() -> Int32? {
            while current == 0 {
                index += 1
                guard index < words.count else { return nil }
                current = words[index]
            }
            let bit = current.trailingZeroBitCount
            current &= current - 1
            return Int32(index << 6 | bit)
        }
    }
}
