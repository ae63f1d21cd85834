/// The members of one JSON object from gpsd, in the order they came, each key once.
///
/// A flat list rather than a dictionary: a report has about twenty members and is read for a few of them, so
/// comparing keys in turn costs less than hashing every one into storage allocated for each line (a moving receiver
/// sends a TPV a second, or ten). Equal when the same keys hold equal values, in any order, as JSON objects are.
struct GPSDObject: Equatable, Sendable {
    private var keys: [String] = []
    private var values: [GPSDJSON] = []
    /// The keys, for finding a repeat without comparing with each, once an object has more than `scanLimit`.
    private var keySet: Set<String>?

    /// Up to this many members, a repeated key is found by comparing it with each key so far.
    static let scanLimit = 32

    init() {
        keys.reserveCapacity(24)
        values.reserveCapacity(24)
    }

    var count: Int { keys.count }

    /// Adds a member; false, adding nothing, when the object already has `key`.
    mutating func insert(_ key: String, _ value: GPSDJSON) -> Bool {
        if keys.count < Self.scanLimit {
            if keys.contains(key) { return false }
        } else {
            var known = keySet ?? Set(keys)
            keySet = nil  // one reference left, so that the insert below does not copy the set
            let inserted = known.insert(key).inserted
            keySet = known
            guard inserted else { return false }
        }
        keys.append(key)
        values.append(value)
        return true
    }

    subscript(key: String) -> GPSDJSON? {
        guard let position = keys.firstIndex(of: key) else { return nil }
        return values[position]
    }

    static func == (left: GPSDObject, right: GPSDObject) -> Bool {
        guard left.count == right.count else { return false }
        for (key, value) in zip(left.keys, left.values) where right[key] != value { return false }
        return true
    }
}
