/// Paces one kind of publication to at most one per `interval`, whatever its source sends: a change inside the
/// interval is published once at the interval's end, carrying the newest state then. A pure value; the daemon keeps
/// the clock and the timer.
struct PublishPacer {
    enum Decision: Equatable {
        /// Publish now.
        case now
        /// Publish after this delay (one publication is now scheduled).
        case after(Duration)
        /// A publication is already scheduled; it will carry this change.
        case alreadyScheduled
    }

    let interval: Duration
    private var lastPublished: ContinuousClock.Instant?
    private var scheduled = false

    init(interval: Duration) {
        self.interval = interval
    }

    /// Something changed at `now`: when to publish it. After `.now`, say `published(at:)` if something went out.
    mutating func changed(at now: ContinuousClock.Instant) -> Decision {
        if scheduled { return .alreadyScheduled }
        if let lastPublished, now - lastPublished < interval {
            scheduled = true
            return .after(interval - (now - lastPublished))
        }
        return .now
    }

    /// The scheduled publication's time came (whether or not anything was left to send).
    mutating func fired() {
        scheduled = false
    }

    /// Something was published at `now`: the interval counts from here. A change that published nothing (nothing
    /// new to say) does not hold back the next one.
    mutating func published(at now: ContinuousClock.Instant) {
        lastPublished = now
    }
}
