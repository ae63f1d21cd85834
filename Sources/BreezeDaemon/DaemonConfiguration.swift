public import BreezeCore
public import BreezeGPSD
public import BreezeWeb
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Everything `breezed` can be told: defaults, then `/etc/breezed/breezed.conf`, then command-line flags.
public struct DaemonConfiguration: Sendable, Equatable {
    public static let defaultPath = ConfigurationFile.breezedDefaultPath

    // [gpsd]
    /// nil: gpsd is not used (`--no-gpsd`).
    public var gpsd: GPSDAddress? = GPSDAddress()
    // [geoclue]
    public var geoclue = true
    /// Act as GeoClue's agent for our own user (needs `breezed` in geoclue.conf's agent whitelist).
    public var geoclueAgent = true
    /// GeoClue accuracy level: 8 exact, 6 street, 5 city, 4 neighbourhood... (lower is a privacy option).
    public var geoclueAccuracy = 8
    // [location]
    public var movementThreshold = 250.0
    /// Seconds a source may go without a fix (GeoClue: before its first) before another source or the fallback
    /// city takes over.
    public var fixTimeout = 30.0
    /// A city name or GeoNames id, used when no source gives positions and none was selected.
    public var fallbackCity: String?
    public var onlineReverseGeocoding = false
    public var placesIndex: String?
    // [data]
    /// No web requests at all: location and place names only.
    public var offline = false
    public var endpoints = WebEndpoints()
    public var googlePollenKey: String?
    public var googlePollenKeyFile: String?
    /// A PEM file of the certificate authorities HTTPS servers are verified against, instead of the system's.
    public var caFile: String?
    /// How long each dataset stays fresh, set by `<dataset>_refresh`: each dataset's `defaultFreshness` unless set.
    public var refresh: [Dataset: Double] = Dictionary(
        uniqueKeysWithValues: Dataset.allCases.map { ($0, $0.defaultFreshness) })
    public var requestsPerHour = 500
    // [socket]
    public var socketPath = "/run/breezed/breezed.sock"
    /// The group whose members may change state; nil: the daemon's own group (unless it is root's), with root and
    /// the daemon's own user.
    public var socketGroup: String?
    /// `socketGroup` resolved when the configuration is read, so that a group that does not exist stops the start.
    public var socketGroupID: UInt32?
    /// Round coordinates to two decimals for peers outside the group.
    public var roundCoordinatesForOthers = true
    public var maximumClients = 1_024
    // [daemon]
    public var stateDirectory = "/var/lib/breezed"
    public var cacheDirectory = "/var/cache/breezed"
    public var logLevel = Logger.Level.info
    // [mqtt]
    public var mqtt = MQTTSettings()

    public init() {}

    /// Applies a configuration file over these values. Unknown sections or keys and bad values are errors with
    /// the line.
    public mutating func apply(_ file: ConfigurationFile) throws(ConfigurationError) {
        for (section, entries) in file.sections.sorted(by: { $0.key < $1.key }) {
            for (key, entry) in entries.sorted(by: { $0.value.line < $1.value.line }) {
                do throws(ValueError) {
                    try set(section: section, key: key, entry.value)
                } catch {
                    throw ConfigurationError(
                        file: file.name, line: entry.line,
                        "\(section.isEmpty ? "" : "[\(section)] ")\(key): \(error.message)")
                }
            }
        }
    }

    struct ValueError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    mutating func set(section: String, key: String, _ value: String) throws(ValueError) {
        switch (section, key) {
        case ("gpsd", "enabled"): if !(try Self.bool(value)) { gpsd = nil } else if gpsd == nil { gpsd = GPSDAddress() }
        case ("gpsd", "address"):
            guard let address = GPSDAddress(value) else { throw ValueError("expected HOST:PORT, found \"\(value)\"") }
            gpsd = address
        case ("geoclue", "enabled"): geoclue = try Self.bool(value)
        case ("geoclue", "agent"): geoclueAgent = try Self.bool(value)
        case ("geoclue", "accuracy"): geoclueAccuracy = try Self.integer(value, in: 0...8)
        case ("location", "movement_threshold"): movementThreshold = try Self.number(value, in: 0...100_000)
        case ("location", "fix_timeout"): fixTimeout = try Self.duration(value, in: 1...3_600)
        case ("location", "fallback_city"): fallbackCity = value.isEmpty ? nil : value
        case ("location", "online_reverse_geocoding"): onlineReverseGeocoding = try Self.bool(value)
        case ("location", "places_index"): placesIndex = value.isEmpty ? nil : value
        case ("data", "offline"): offline = try Self.bool(value)
        case ("data", "api_base"): endpoints = WebEndpoints(base: try Self.url(value))
        case ("data", "air_quality_url"): endpoints.airQuality = try Self.url(value)
        case ("data", "archive_url"): endpoints.archive = try Self.url(value)
        case ("data", "forecast_url"): endpoints.forecast = try Self.url(value)
        case ("data", "geocoding_url"): endpoints.geocoding = try Self.url(value)
        case ("data", "google_pollen_url"): endpoints.googlePollen = try Self.url(value)
        case ("data", "nominatim_url"): endpoints.nominatim = try Self.url(value)
        case ("data", "google_pollen_key"): googlePollenKey = value.isEmpty ? nil : value
        case ("data", "google_pollen_key_file"): googlePollenKeyFile = value.isEmpty ? nil : value
        case ("data", "ca_file"): caFile = value.isEmpty ? nil : try Self.path(value)
        case ("data", let key) where Self.refreshKeys[key] != nil:
            refresh[Self.refreshKeys[key]!] = try Self.duration(value, in: Self.refreshRange)
        case ("data", "requests_per_hour"): requestsPerHour = try Self.integer(value, in: 1...4_000)
        case ("socket", "path"): socketPath = try Self.path(value)
        case ("socket", "group"):
            socketGroup = value.isEmpty ? nil : value
            socketGroupID = value.isEmpty ? nil : try Self.groupID(value)
        case ("socket", "round_coordinates"): roundCoordinatesForOthers = try Self.bool(value)
        case ("socket", "max_clients"): maximumClients = try Self.integer(value, in: 1...65_536)
        case ("daemon", "state_dir"): stateDirectory = try Self.path(value)
        case ("daemon", "cache_dir"): cacheDirectory = try Self.path(value)
        case ("mqtt", let key): try mqtt.set(key: key, value)
        case ("daemon", "log_level"):
            guard let level = Logger.Level(name: value) else {
                throw ValueError("expected error, warning, notice, info or debug, found \"\(value)\"")
            }
            logLevel = level
        default:
            let known =
                Self.knownKeys[section].map { ": known keys are \($0.joined(separator: ", "))" }
                ?? ": known sections are gpsd, geoclue, location, data, socket, daemon, mqtt"
            throw ValueError("unknown setting\(known)")
        }
    }

    /// The `[data]` keys that set a dataset's freshness.
    static let refreshKeys = Dictionary(uniqueKeysWithValues: Dataset.allCases.map { ($0.refreshKey, $0) })

    static let knownKeys: [String: [String]] = [
        "gpsd": ["enabled", "address"], "geoclue": ["enabled", "agent", "accuracy"],
        "location": ["movement_threshold", "fix_timeout", "fallback_city", "online_reverse_geocoding", "places_index"],
        "data": [
            "offline", "api_base", "air_quality_url", "archive_url", "forecast_url", "geocoding_url",
            "google_pollen_url", "nominatim_url", "google_pollen_key", "google_pollen_key_file", "ca_file",
        ]
            + Dataset.allCases.map(\.refreshKey) + ["requests_per_hour"],
        "socket": ["path", "group", "round_coordinates", "max_clients"],
        "daemon": ["state_dir", "cache_dir", "log_level"],
        "mqtt": MQTTSettings.keys,
    ]

    static func bool(_ value: String) throws(ValueError) -> Bool {
        switch value.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw ValueError("expected true or false, found \"\(value)\"")
        }
    }

    static func integer(_ value: String, in range: ClosedRange<Int>) throws(ValueError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw ValueError(
                "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \"\(value)\"")
        }
        return number
    }

    static func number(_ value: String, in range: ClosedRange<Double>) throws(ValueError) -> Double {
        guard let number = Double(value), number.isFinite, range.contains(number) else {
            throw ValueError("expected a number from \(range.lowerBound) to \(range.upperBound), found \"\(value)\"")
        }
        return number
    }

    /// The range of a dataset's freshness (`air_refresh`, …).
    static let refreshRange: ClosedRange<Double> = 60...7 * 86_400

    /// A duration in seconds: a number of seconds, or a number with `s`, `m`, `h` or `d` (`90`, `90s`, `30m`, `1h`),
    /// within `range`. Every duration in the file takes this form.
    static func duration(_ value: String, in range: ClosedRange<Double>) throws(ValueError) -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var text = value.lowercased()
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            scale = unit
            text.removeLast()
        }
        guard let number = Double(text), number.isFinite, range.contains(number * scale) else {
            throw ValueError(
                "expected a duration from \(durationText(range.lowerBound)) to \(durationText(range.upperBound)) "
                    + "(seconds, or with s, m, h or d: 90, 30m, 1h), found \"\(value)\"")
        }
        return number * scale
    }

    /// `seconds` in the largest unit that divides it: `30s`, `1m`, `7d`.
    static func durationText(_ seconds: Double) -> String {
        for (unit, size) in [("d", 86_400.0), ("h", 3_600), ("m", 60)] where seconds >= size {
            if seconds.truncatingRemainder(dividingBy: size) == 0 { return "\(Int(seconds / size))\(unit)" }
        }
        return "\(Int(seconds))s"
    }

    /// The group named `value` (or a numeric group id), looked up now so that a group that does not exist stops
    /// the start rather than leaving the socket to the daemon's own group. Wraps `getgrnam_r`.
    static func groupID(_ value: String) throws(ValueError) -> UInt32 {
        if let id = UInt32(value) {
            // (gid_t)-1 means "leave the group unchanged" to chown.
            guard id != UInt32.max else {
                throw ValueError("expected a group name or id below \(UInt32.max), found \(id)")
            }
            return id
        }
        guard let entry = groupEntry({ getgrnam_r(value, $0, $1, $2, $3) }) else {
            throw ValueError("no group named \(value)")
        }
        return entry.id
    }

    /// The name of the group `id` (for the hint telling a peer which group to join); nil when it has none.
    static func groupName(_ id: UInt32) -> String? {
        groupEntry { getgrgid_r(id, $0, $1, $2, $3) }?.name
    }

    /// The group `lookup` finds (`getgrnam_r` or `getgrgid_r`, given the entry, a buffer, its size and the result),
    /// the buffer grown while the entry does not fit; nil when there is no such group.
    private static func groupEntry(
        _ lookup: (
            UnsafeMutablePointer<group>, UnsafeMutablePointer<CChar>, Int,
            UnsafeMutablePointer<UnsafeMutablePointer<group>?>
        ) -> Int32
    ) -> (id: UInt32, name: String)? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var size = 4_096
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let status = buffer.withUnsafeMutableBufferPointer { lookup(&entry, $0.baseAddress!, size, &result) }
            if status == ERANGE && size < Self.maximumGroupEntrySize {
                size *= 4
                continue
            }
            guard status == 0, result != nil, let name = entry.gr_name else { return nil }
            return (entry.gr_gid, String(cString: name))
        }
    }

    /// The largest group entry (its member list) `groupID` and `groupName` make room for.
    static let maximumGroupEntrySize = 1 << 20

    static func url(_ value: String) throws(ValueError) -> URL {
        // An empty host is nil in Foundation 6.3 and "" in 6.0: "http://" names no server either way.
        guard let url = URL(string: value), let scheme = url.scheme, ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else { throw ValueError("expected an http:// or https:// URL, found \"\(value)\"") }
        return url
    }

    static func path(_ value: String) throws(ValueError) -> String {
        guard value.hasPrefix("/") else { throw ValueError("expected an absolute path, found \"\(value)\"") }
        return value
    }
}
