/// A dataset the daemon keeps for a place: its name, the protocol class that carries it and how long it stays fresh.
///
/// A dataset is declared next to its report, as a static member (`Dataset.weather`) that the report's
/// `DatasetReport.dataset` names, and registered once, by its report type, in `Dataset.registeredReports`. Its name
/// is the MQTT topic, the cache's file prefix, the `breezectl` subcommand and, with `_refresh`, the configuration key
/// of its freshness; its class name is the only place the protocol class is spelled.
public struct Dataset: Hashable, Sendable, Codable, RawRepresentable, CustomStringConvertible {
    /// The name: `air`, `pollen`, `climate`, `weather`.
    public let rawValue: String
    /// The protocol class that carries it: `AIR`, `POLLEN`, `CLIMATE`, `WEATHER`.
    public let className: String
    /// How long it stays fresh unless the configuration says otherwise, in seconds.
    public let defaultFreshness: Double

    /// A dataset's declaration; `init?(rawValue:)` finds only registered ones.
    public init(name: String, className: String, defaultFreshness: Double) {
        rawValue = name
        self.className = className
        self.defaultFreshness = defaultFreshness
    }

    /// The registered dataset named `rawValue`, if any.
    public init?(rawValue: String) {
        guard let dataset = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = dataset
    }

    /// The registered dataset whose protocol class is `className`, if any.
    public init?(className: String) {
        guard let dataset = Self.allCases.first(where: { $0.className == className }) else { return nil }
        self = dataset
    }

    /// The report types of every dataset, in the order the datasets are shown and published: the one list a new
    /// dataset is added to.
    public static var registeredReports: [any DatasetReport.Type] {
        [AirQualityReport.self, PollenReport.self, ClimateReport.self, WeatherReport.self]
    }

    /// Every registered dataset, in `registeredReports` order.
    public static let allCases: [Dataset] = registeredReports.map { $0.dataset }

    /// The type of its report.
    public var reportType: any DatasetReport.Type {
        guard let type = Self.registeredReports.first(where: { $0.dataset == self }) else {
            preconditionFailure("dataset \(rawValue) is declared but not in Dataset.registeredReports")
        }
        return type
    }

    /// The configuration key (in `[data]`) that sets its freshness: `air_refresh`, …
    public var refreshKey: String { rawValue + "_refresh" }

    public var description: String { rawValue }

    public static func == (left: Dataset, right: Dataset) -> Bool { left.rawValue == right.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
