/// The best score a search has found so far for each place it met: a hash table of its own, open addressing with
/// linear probing, each place spread by one multiplication (Fibonacci hashing). The standard dictionary hashes every
/// key with SipHash, which cost a search as much as all the scoring around it; these keys are places' positions in
/// the index, not text from outside, and need no defence against chosen collisions.
struct PlaceScores {
    struct Entry {
        var place: UInt32
        var score: Double
        var alternate: Bool
    }

    /// Marks a free slot: no place has this position (`PlacesIndexFormat.noPlace`).
    private static let free = PlacesIndexFormat.noPlace
    private var slots: [Entry]
    /// How far a place's product is shifted down to give its first slot: 32 less the slots' power of two.
    private var shift: UInt32
    private(set) var count = 0

    /// Room for `rankedPrefixDepth` matches and the whole-name ones without growing, as a ranked prefix has.
    init() {
        slots = Array(repeating: Entry(place: Self.free, score: 0, alternate: false), count: 64)
        shift = 32 - 6
    }

    /// Keeps `score` for `place` when it is its first or beats the one kept (then `alternate` with it).
    mutating func add(_ place: UInt32, score: Double, alternate: Bool) {
        guard place != Self.free else { return }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var at = Int(truncatingIfNeeded: (place &* 0x9E37_79B9) >> shift)
        while true {
            if slots[at].place == place {
                if score > slots[at].score {
                    slots[at].score = score
                    slots[at].alternate = alternate
                }
                return
            }
            if slots[at].place == Self.free {
                slots[at] = Entry(place: place, score: score, alternate: alternate)
                count += 1
                return
            }
            at = (at + 1) & mask
        }
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
        slots = Array(repeating: Entry(place: Self.free, score: 0, alternate: false), count: slots.count * 2)
        shift -= 1
        count = 0
        for entry in kept { add(entry.place, score: entry.score, alternate: entry.alternate) }
    }
}

extension PlaceScores: Sequence {
    /// Every place kept, in no particular order, with no array made for them.
    func makeIterator() -> some IteratorProtocol<Entry> {
        slots.lazy.filter { $0.place != Self.free }.makeIterator()
    }
}
