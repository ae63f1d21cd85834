public import BreezeCore

/// The `AIR`, `POLLEN` and `CLIMATE` objects: each dataset with its state (loading, fresh, stale with its age,
/// unavailable here, failed with the reason, offline) and the last good values.
public enum DatasetMessage {
    /// The dataset's object for `state`: the common header, then the members its report puts on the wire.
    public static func message<Report: DatasetReport>(_ state: DatasetState<Report>, now: Double) -> JSONValue {
        message(
            Report.dataset, status: state.status, place: state.place, report: state.report,
            fetchedAt: state.fetchedAt, now: now, lastFailure: state.lastFailure, retryAt: state.retryAt)
    }

    /// The same for a report known only as `any DatasetReport` (as the pipeline publishes it).
    /// `freshFor`: how long data of this dataset counts as fresh (`fresh_for_s`), so that a client can tell data the
    /// clock has made old since it was sent; nil leaves it out.
    public static func message(
        _ dataset: Dataset, status: DatasetStatus, place: Place, report: (any DatasetReport)?, fetchedAt: Double?,
        now: Double, freshFor: Double? = nil, lastFailure: String? = nil, retryAt: Double? = nil
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("class", .string(dataset.className)), ("state", .string(status.name))]
        if let reason = status.reason { members.append(("reason", .string(reason))) }
        // Since proto_minor 7: fresh data whose last refresh failed says why.
        if let lastFailure { members.append(("last_failure", .string(lastFailure))) }
        // Since proto_minor 8: after a failed attempt, when the next one is due.
        if let retryAt { members.append(("retry_at", Timestamp.json(retryAt))) }
        members += [
            ("place", .string(place.displayName)), ("place_id", .number(Double(place.id))),
            ("fetched", fetchedAt.map(Timestamp.json) ?? .null),
            ("age_s", fetchedAt.map { .number(max(0, now - $0).rounded()) } ?? .null),
        ]
        if let freshFor, freshFor.isFinite { members.append(("fresh_for_s", .number(max(0, freshFor).rounded()))) }
        if let body = report as? any DatasetMessageBody {
            members += body.messageMembers
        } else if let type = dataset.reportType as? any DatasetMessageBody.Type {
            members += type.membersWithoutReport
        }
        return .object(members)
    }

    /// The same dataset in the state `status` with no values: for offline mode and before any place is known.
    /// It carries the members a dataset sends without a report (the keys its Home Assistant templates read, null).
    public static func empty(_ dataset: Dataset, status: DatasetStatus, reason: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("class", .string(dataset.className)), ("state", .string(status.name))]
        if let reason = reason ?? status.reason { members.append(("reason", .string(reason))) }
        members += (dataset.reportType as? any DatasetMessageBody.Type)?.membersWithoutReport ?? []
        return .object(members)
    }

    static func tips(_ sentences: [String]) -> JSONValue {
        .array(sentences.map(JSONValue.string))
    }

    static func rounded(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }
}
