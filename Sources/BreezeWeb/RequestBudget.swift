import Synchronization

/// Caps the requests a daemon makes per minute, hour and day, well under Open-Meteo's free limits (600 a
/// minute, 5,000 an hour, 10,000 a day), however often the location changes.
///
/// Each window counts the requests sent in the last minute, hour or day; a request over any cap is not sent,
/// and the error says when the next one may be.
public final class RequestBudget: Sendable {
    public struct Limits: Hashable, Sendable {
        public var perMinute: Int
        public var perHour: Int
        public var perDay: Int

        public init(perMinute: Int = 60, perHour: Int = 500, perDay: Int = 2_000) {
            self.perMinute = perMinute
            self.perHour = perHour
            self.perDay = perDay
        }
    }

    private struct State {
        /// Send times, oldest first, within the last day.
        var sent: [Double] = []
        var total = 0
    }

    public let limits: Limits
    private let now: @Sendable () -> Double
    private let state = Mutex(State())

    /// - Parameter now: the time in seconds, from any origin; by default the monotonic clock's since this budget was
    ///   made. The windows are intervals: a step of the wall clock (NTP setting a Raspberry Pi's clock days forward,
    ///   or a little back) must neither forget the requests just sent nor count them for days.
    public init(limits: Limits = Limits(), now: (@Sendable () -> Double)? = nil) {
        self.limits = limits
        let start = ContinuousClock.now
        self.now =
            now ?? {
                let (seconds, attoseconds) = (ContinuousClock.now - start).components
                return Double(seconds) + Double(attoseconds) / 1e18
            }
    }

    /// Requests admitted since start.
    public var total: Int { state.withLock { $0.total } }

    /// Admits one request, or says how many seconds until one would be admitted.
    func admit() throws(WebError) {
        let time = now()
        let wait = state.withLock { state -> Double? in
            let wait = Self.wait(&state, at: time, limits)
            if wait > 0 { return wait }
            state.sent.append(time)
            state.total += 1
            return nil
        }
        if let wait {
            throw WebError(
                .overBudget, "request budget spent; the next request may go in \(Int(wait.rounded(.up))) s",
                retryAfter: wait)
        }
    }

    /// Whether a request would be admitted now (none is counted).
    public var hasRoom: Bool {
        let time = now()
        return state.withLock { Self.wait(&$0, at: time, limits) <= 0 }
    }

    /// Seconds until a request may go (0: now), forgetting sends older than a day.
    private static func wait(_ state: inout State, at time: Double, _ limits: Limits) -> Double {
        if let expired = state.sent.firstIndex(where: { $0 > time - 86_400 }) {
            state.sent.removeFirst(expired)
        } else {
            state.sent.removeAll()
        }
        var wait = 0.0
        for (window, cap) in [(60.0, limits.perMinute), (3_600, limits.perHour), (86_400, limits.perDay)] {
            let inWindow = state.sent.reversed().prefix { $0 > time - window }.count
            if inWindow >= cap {
                // The oldest request in the window must leave it first.
                let oldest = state.sent[state.sent.count - cap]
                wait = max(wait, oldest + window - time)
            }
        }
        return wait
    }
}
