/// Pollen at one place: per pollen type or plant, a level on the 0–5 scale, and which provider said so.
public struct PollenReport: Hashable, Sendable, Codable {
    public enum Provider: String, Sendable, Codable {
        /// Open-Meteo's air-quality API: six European taxa in grains/m³.
        case openMeteo = "open-meteo"
        /// Google's Pollen API: types and plants worldwide, as a 0–5 index.
        case google
    }

    /// One pollen type ("grass", "tree", "weed") or plant ("birch", "ragweed").
    public struct Entry: Hashable, Sendable, Codable {
        public enum Kind: String, Sendable, Codable {
            case type
            case plant
        }

        public var code: String
        public var name: String
        public var kind: Kind
        /// nil when the provider has no value (out of season, or not measured here).
        public var level: PollenLevel?
        /// Grains per m³, where the provider gives a concentration.
        public var grains: Double?

        public init(code: String, name: String, kind: Kind, level: PollenLevel?, grains: Double? = nil) {
            self.code = code
            self.name = name
            self.kind = kind
            self.level = level
            self.grains = grains
        }
    }

    public var provider: Provider
    /// When the values hold, in seconds since 1970 (UTC).
    public var time: Double
    public var entries: [Entry]

    public init(provider: Provider, time: Double, entries: [Entry]) {
        self.provider = provider
        self.time = time
        self.entries = entries
    }

    /// False when the provider answered but has no value for this place: "not available here", not an error.
    public var isAvailable: Bool {
        entries.contains { $0.level != nil }
    }

    /// The highest level of any entry.
    public var highest: PollenLevel? {
        entries.compactMap(\.level).max()
    }
}

extension PollenReport: Plausible {
    /// A count is named as Open-Meteo names it (`birch_pollen`).
    public func checkPlausible() throws(ImplausibleValue) {
        try PlausibleRange.check(time, in: PlausibleRange.time, field: "time")
        try PlausibleRange.check(count: entries.count, atMost: PlausibleRange.pollenEntries, field: "entries")
        for entry in entries {
            if let grains = entry.grains {
                try PlausibleRange.check(
                    grains, in: PlausibleRange.pollenGrains, field: "\(entry.code.lowercased())_pollen")
            }
        }
    }
}

extension Dataset {
    /// `POLLEN`: the pollen levels, fresh for a day.
    public static let pollen = Dataset(name: "pollen", className: "POLLEN", defaultFreshness: 86_400)
}

extension PollenReport: DatasetReport {
    public static var dataset: Dataset { .pollen }

    public var unavailableReason: String? {
        guard !isAvailable else { return nil }
        return provider == .openMeteo
            ? "no pollen data here: Open-Meteo covers Europe in season; a Google Pollen key covers the world"
            : "no pollen data for this place today"
    }
}
