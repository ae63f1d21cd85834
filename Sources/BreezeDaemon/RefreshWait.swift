import BreezeCore
import BreezeData
import BreezeProtocol

/// A `refresh` with `wait`: which datasets have answered since it began. A pure value; the daemon feeds it the
/// pipeline's updates and answers the request once it is complete (or its time is up).
struct RefreshWait {
    /// The longest a `refresh` with `wait` is held: past it, the reply goes out with the datasets that have not
    /// answered still `loading`. The web clients' own deadlines end every attempt well before.
    static let limit: Duration = .seconds(120)

    /// The place refreshed.
    let place: Place
    /// Wall time (seconds since 1970) when the refresh began: only what was fetched or failed since counts.
    let since: Double
    /// Each dataset's answer: its first update that is the outcome of an attempt made since `since`.
    private(set) var answers: [Dataset: DataUpdate] = [:]
    /// The request's reply, once the wait is complete.
    var continuation: CheckedContinuation<[Dataset: DataUpdate], Never>?
    /// Answers the wait at the end of `limit`.
    var timer: Task<Void, Never>?
    /// Set when `limit` passed before every dataset answered.
    var expired = false

    init(place: Place, since: Double) {
        self.place = place
        self.since = since
    }

    /// True once every dataset has answered (or the wait has expired).
    var isComplete: Bool { expired || Dataset.allCases.allSatisfy { answers[$0] != nil } }

    /// Takes an update the pipeline published at `publishedAt`. What the cache held (published as a run begins)
    /// and `loading` are no answer; a fetch since `since` is (fresh, or unavailable here), and so is a failure
    /// (`failed`, or `stale` kept through one). When the place changed under the refresh, the new place's first
    /// state with or without data counts: it is the answer for the place now current.
    mutating func record(_ update: DataUpdate, publishedAt: Double) {
        guard answers[update.dataset] == nil, publishedAt >= since else { return }
        let samePlace = update.place.id == place.id && update.place.coordinate == place.coordinate
        let answered: Bool
        switch update.status {
        case .loading: answered = false
        case .failed, .offline: answered = true
        case .stale(let reason): answered = reason != nil || !samePlace
        case .fresh, .unavailable:
            // A refresh that failed, its data still fresh, is answered by the failure.
            answered = !samePlace || update.lastFailure != nil || (update.fetchedAt ?? -.infinity) >= since
        }
        if answered { answers[update.dataset] = update }
    }

    /// The `OK` reply: each dataset's class, state and reason (`loading` for one that did not answer in time).
    static func reply(_ answers: [Dataset: DataUpdate]) -> JSONValue {
        let datasets = Dataset.allCases.map { dataset -> JSONValue in
            var members: [(String, JSONValue)] = [("class", .string(dataset.className))]
            guard let update = answers[dataset] else {
                members.append(("state", .string(DatasetStatus.loading.name)))
                return .object(members)
            }
            members.append(("state", .string(update.status.name)))
            if let reason = update.status.reason ?? update.lastFailure { members.append(("reason", .string(reason))) }
            members.append(("place", .string(update.place.displayName)))
            return .object(members)
        }
        return .object([("class", .string("OK")), ("command", .string("refresh")), ("datasets", .array(datasets))])
    }
}

/// The `refresh` requests with `wait` not yet answered, by a number of their own.
struct RefreshWaits {
    private var waits: [Int: RefreshWait] = [:]
    private var next = 0

    var keys: [Int] { Array(waits.keys) }

    /// Holds `wait`; returns its number.
    mutating func add(_ wait: RefreshWait) -> Int {
        next += 1
        waits[next] = wait
        return next
    }

    subscript(key: Int) -> RefreshWait? {
        get { waits[key] }
        set { waits[key] = newValue }
    }

    mutating func removeValue(forKey key: Int) -> RefreshWait? {
        waits.removeValue(forKey: key)
    }
}
