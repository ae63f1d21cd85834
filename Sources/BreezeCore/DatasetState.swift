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
    /// Why the last attempt failed, while the report is still `fresh` (a refresh that failed leaves fresh data
    /// fresh); nil otherwise.
    public var lastFailure: String?
    /// Seconds since 1970 when the next attempt is due, after one that failed; nil otherwise.
    public var retryAt: Double?

    public init(
        place: Place, status: DatasetStatus, report: Report?, fetchedAt: Double?, lastFailure: String? = nil,
        retryAt: Double? = nil
    ) {
        self.place = place
        self.status = status
        self.report = report
        self.fetchedAt = fetchedAt
        self.lastFailure = lastFailure
        self.retryAt = retryAt
    }

    /// Seconds since the report was fetched, at `now`.
    public func age(at now: Double) -> Double? {
        fetchedAt.map { max(0, now - $0) }
    }
}
