import BreezeSystem

/// The location service's events on their way to the one reader, with a bound: a position waiting to be read is
/// replaced by a newer one rather than queued behind it, so a flood of fixes leaves one position pending, not one
/// per fix. State changes (permission, no position, hand-overs) keep their order.
final class LocationEventQueue: Sendable {
    /// Events held for a reader that is behind. Only state changes accumulate (positions coalesce), and those come
    /// a few per source connection; past the bound the oldest position goes first, then the oldest event.
    static let limit = 64

    private let mailbox = EventMailbox<LocationServiceEvent>()

    /// The events as the one stream the service hands out.
    func stream() -> AsyncStream<LocationServiceEvent> {
        AsyncStream(unfolding: { [mailbox] in await mailbox.next() })
    }

    func append(_ event: LocationServiceEvent) {
        mailbox.post(event) { events, event in
            if case .position = event, case .position? = events.last {
                events[events.count - 1] = event
                return
            }
            if events.count >= Self.limit {
                let oldestPosition = events.firstIndex { if case .position = $0 { true } else { false } }
                events.remove(at: oldestPosition ?? 0)
            }
            events.append(event)
        }
    }

    /// Ends the stream once the reader has taken what is queued.
    func finish() {
        mailbox.finish()
    }

    /// Events queued now (for tests of the bound).
    var count: Int {
        mailbox.count
    }
}
