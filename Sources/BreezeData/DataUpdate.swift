public import BreezeCore

/// One dataset's new state for the current place, as the pipeline publishes it: any dataset, its report kept as
/// `any DatasetReport`.
public struct DataUpdate: Hashable, Sendable {
    public let dataset: Dataset
    public let place: Place
    public let status: DatasetStatus
    /// The last good report, if any.
    public let report: (any DatasetReport)?
    /// Seconds since 1970 when `report` was fetched.
    public let fetchedAt: Double?
    /// Why the last attempt failed, while the report is still fresh (`DatasetState.lastFailure`).
    public let lastFailure: String?
    /// When the next attempt is due, after one that failed (`DatasetState.retryAt`).
    public let retryAt: Double?

    public init<Report: DatasetReport>(_ state: DatasetState<Report>) {
        dataset = Report.dataset
        place = state.place
        status = state.status
        report = state.report
        fetchedAt = state.fetchedAt
        lastFailure = state.lastFailure
        retryAt = state.retryAt
    }

    /// The update as the state of the dataset whose report is `Report`, or nil when it is another dataset.
    public func state<Report: DatasetReport>(as type: Report.Type) -> DatasetState<Report>? {
        guard dataset == Report.dataset else { return nil }
        return DatasetState(
            place: place, status: status, report: report as? Report, fetchedAt: fetchedAt, lastFailure: lastFailure,
            retryAt: retryAt)
    }

    public static func == (left: DataUpdate, right: DataUpdate) -> Bool {
        left.dataset == right.dataset && left.place == right.place && left.status == right.status
            && left.fetchedAt == right.fetchedAt && left.lastFailure == right.lastFailure
            && left.retryAt == right.retryAt
            && left.hashableReport == right.hashableReport
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(dataset)
        hasher.combine(place)
        hasher.combine(status)
        hasher.combine(fetchedAt)
        hasher.combine(lastFailure)
        hasher.combine(retryAt)
        hasher.combine(hashableReport)
    }

    private var hashableReport: AnyHashable? {
        guard let report else { return nil }
        return AnyHashable(report)
    }
}
