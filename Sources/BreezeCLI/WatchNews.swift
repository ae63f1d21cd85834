import BreezeCore

/// Which updates a text `watch` prints: a line when what it shows changed. For `LOCATION` and `PERMISSION`, the
/// line past the time it begins with (a `LOCATION` sent for each fix of a parked receiver shows the same); for a
/// dataset, its object but for its age and the time of its next try (a retry that fails for the same reason is no
/// news), and but for `fetched` unless it is fresh (new data, then, even with the same values).
struct WatchNews {
    private var shown: [String: String] = [:]

    /// True when `line`, for `message` of `className`, shows something its class's last printed line did not.
    mutating func isNews(_ className: String, _ message: JSONValue, line: String) -> Bool {
        let key = Self.key(className, message, line: line)
        guard shown[className] != key else { return false }
        shown[className] = key
        return true
    }

    static func key(_ className: String, _ message: JSONValue, line: String) -> String {
        guard Dataset(className: className) != nil, case .object(let members) = message else {
            return String(line.drop { $0 != " " })
        }
        let fresh = message["state"]?.stringValue == "fresh"
        return JSONValue.object(
            members.filter { !["age_s", "retry_at"].contains($0.0) && (fresh || $0.0 != "fetched") }
        ).encoded()
    }
}
