/// The datasets the daemon keeps for a place.
///
/// A dataset is registered here once: its case, the protocol class that carries it, how long it stays fresh and
/// the key that sets that in the configuration. Its report conforms to `DatasetReport`.
public enum Dataset: String, CaseIterable, Sendable, Codable {
    case air
    case pollen
    case climate
    case weather

    /// The protocol class that carries it: `AIR`, `POLLEN`, `CLIMATE`, `WEATHER`.
    public var className: String { rawValue.uppercased() }

    /// How long it stays fresh unless the configuration says otherwise: air quality and the weather hourly, pollen
    /// and climate daily.
    public var defaultFreshness: Double {
        switch self {
        case .air, .weather: 3_600
        case .pollen, .climate: 86_400
        }
    }

    /// The type of its report.
    public var reportType: any DatasetReport.Type {
        switch self {
        case .air: AirQualityReport.self
        case .pollen: PollenReport.self
        case .climate: ClimateReport.self
        case .weather: WeatherReport.self
        }
    }

    /// The configuration key (in `[data]`) that sets its freshness: `air_refresh`, …
    public var refreshKey: String { rawValue + "_refresh" }

    /// The dataset whose protocol class is `className`, if any.
    public init?(className: String) {
        guard let dataset = Self.allCases.first(where: { $0.className == className }) else { return nil }
        self = dataset
    }
}

/// Where a dataset stands for the current place.
public enum DatasetStatus: Hashable, Sendable {
    /// Asked for, nothing to show yet.
    case loading
    /// Fetched within its freshness period.
    case fresh
    /// Older than its freshness period, or kept through a failure: shown with its age.
    case stale(reason: String?)
    /// The provider has nothing for this place (pollen outside Europe without a Google key).
    case unavailable(reason: String)
    /// No data at all, and the last attempt failed.
    case failed(reason: String)
    /// Data fetching is switched off (`--offline`).
    case offline

    public var name: String {
        switch self {
        case .loading: "loading"
        case .fresh: "fresh"
        case .stale: "stale"
        case .unavailable: "unavailable"
        case .failed: "failed"
        case .offline: "offline"
        }
    }

    public var reason: String? {
        switch self {
        case .stale(let reason): reason
        case .unavailable(let reason), .failed(let reason): reason
        case .loading, .fresh, .offline: nil
        }
    }
}

/// One dataset for one place, as published: its status, the last good report (if any) and when it was fetched.
public struct DatasetState<Report: Hashable & Sendable>: Hashable, Sendable {
    public var place: Place
    public var status: DatasetStatus
    public var report: Report?
    /// Seconds since 1970 when `report` was fetched.
    public var fetchedAt: Double?

    public init(place: Place, status: DatasetStatus, report: Report?, fetchedAt: Double?) {
        self.place = place
        self.status = status
        self.report = report
        self.fetchedAt = fetchedAt
    }

    /// Seconds since the report was fetched, at `now`.
    public func age(at now: Double) -> Double? {
        fetchedAt.map { max(0, now - $0) }
    }
}
