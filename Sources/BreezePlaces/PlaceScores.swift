/// The best score a search has found so far for each place it met: a hash table of its own, open addressing with
/// linear probing, each place spread by one multiplication (Fibonacci hashing). The standard dictionary hashes every
/// key with SipHash, which cost a search as much as all the scoring around it; these keys are places' positions in
/// the index, not text from outside, and need no defence against chosen collisions.
struct PlaceScores {
    struct Entry {
        var place: UInt32
        var score: Double
        /// Whether the place matched by another name than its own.
        var alternate: Bool
        /// What matched: a position in `KEYS`, or with `section` the section (a place) whose name matched.
        var key: UInt32
        var section: Bool
    }

    /// Marks a free slot: no place has this position (`PlacesIndexFormat.noPlace`).
    private static let free = PlacesIndexFormat.noPlace
    private static let freeEntry = Entry(place: free, score: 0, alternate: false, key: 0, section: false)
    private var slots: [Entry]
    /// How far a place's product is shifted down to give its first slot: 32 less the slots' power of two.
    private var shift: UInt32
    private(set) var count = 0

    /// Room for `rankedPrefixDepth` matches and the whole-name ones without growing, as a ranked prefix has.
    init() {
        slots = Array(repeating: Self.freeEntry, count: 64)
        shift = 32 - 6
    }

    /// Keeps `entry` when it is its place's first or beats the one kept (a higher score; the same score from an
    /// earlier key).
    mutating func add(_ entry: Entry) {
        guard entry.place != Self.free else { return }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let at = slot(of: entry.place)
        if slots[at].place == Self.free {
            slots[at] = entry
            count += 1
        } else if entry.score > slots[at].score
            || (entry.score == slots[at].score && !entry.section && !slots[at].section && entry.key < slots[at].key)
        {
            slots[at] = entry
        }
    }

    /// The entry kept for `place`, if any.
    func entry(for place: UInt32) -> Entry? {
        let found = slots[slot(of: place)]
        return found.place == Self.free ? nil : found
    }

    /// The slot that holds `place`, or the free one where it would go.
    private func slot(of place: UInt32) -> Int {
        let mask = slots.count - 1
        var at = Int(truncatingIfNeeded: (place &* 0x9E37_79B9) >> shift)
        while slots[at].place != place && slots[at].place != Self.free { at = (at + 1) & mask }
        return at
    }

    /// Every place kept, in no particular order.
    var entries: [Entry] {
        slots.filter { $0.place != Self.free }
    }

    func contains(where include: (UInt32) -> Bool) -> Bool {
        slots.contains { $0.place != Self.free && include($0.place) }
    }

    /// Twice the slots, every entry placed again.
    private mutating func grow() {
        let kept = entries
        slots = Array(repeating: Self.freeEntry, count: slots.count * 2)
        shift -= 1
        count = 0
        for entry in kept { add(entry) }
    }
}

extension PlaceScores: Sequence {
    /// Every place kept, in no particular order, with no array made for them.
    func makeIterator() -> some IteratorProtocol<Entry> {
        slots.lazy.filter { $0.place != Self.free }.makeIterator()
    }
}
