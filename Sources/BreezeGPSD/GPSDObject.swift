/// The members of one JSON object from gpsd, in the order they came, each key once.
///
/// A flat list rather than a dictionary: a report has about twenty members and is read for a few of them, so
/// comparing keys in turn costs less than hashing every one into storage allocated for each line (a moving receiver
/// sends a TPV a second, or ten). Keys gpsd's reports use are known by number (`GPSDKey`): a bit each says which are
/// here, so a repeat of one is found, and a missing one told, without a comparison. Equal when the same keys hold
/// equal values, in any order, as JSON objects are.
struct GPSDObject: Equatable, Sendable {
    private var keys: [GPSDKey] = []
    private var values: [GPSDJSON] = []
    /// Bit `name.number` is set when the object has the known key `name`.
    private var knownNames: UInt64 = 0
    /// How many keys are not known ones.
    private var otherCount = 0
    /// The keys that are not known ones, for finding a repeat without comparing with each, once there are more than
    /// `scanLimit`.
    private var otherSet: Set<String>?

    /// Up to this many other keys, a repeated one is found by comparing it with each key so far.
    static let scanLimit = 32

    init() {
        keys.reserveCapacity(24)
        values.reserveCapacity(24)
    }

    var count: Int { keys.count }

    /// Adds a member; false, adding nothing, when the object already has `key`.
    mutating func insert(_ key: GPSDKey, _ value: GPSDJSON) -> Bool {
        switch key {
        case .known(let name):
            let bit: UInt64 = 1 << name.number
            guard knownNames & bit == 0 else { return false }
            knownNames |= bit
        case .other(let text):
            if otherCount < Self.scanLimit {
                if keys.contains(key) { return false }
            } else {
                var others = otherSet ?? Set(keys.compactMap { if case .other(let text) = $0 { text } else { nil } })
                otherSet = nil  // one reference left, so that the insert below does not copy the set
                let inserted = others.insert(text).inserted
                otherSet = others
                guard inserted else { return false }
            }
            otherCount += 1
        }
        keys.append(key)
        values.append(value)
        return true
    }

    subscript(name: GPSDKey.Name) -> GPSDJSON? {
        guard knownNames & 1 << name.number != 0 else { return nil }
        return self[.known(name)]
    }

    subscript(key: GPSDKey) -> GPSDJSON? {
        guard let position = keys.firstIndex(of: key) else { return nil }
        return values[position]
    }

    static func == (left: GPSDObject, right: GPSDObject) -> Bool {
        guard left.count == right.count else { return false }
        for (key, value) in zip(left.keys, left.values) where right[key] != value { return false }
        return true
    }
}
