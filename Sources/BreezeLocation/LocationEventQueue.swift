import Synchronization

/// The location service's events on their way to the one reader, with a bound: a position waiting to be read is
/// replaced by a newer one rather than queued behind it, so a flood of fixes leaves one position pending, not one
/// per fix. State changes (permission, fallback, hand-overs) keep their order.
final class LocationEventQueue: Sendable {
    /// Events held for a reader that is behind. Only state changes accumulate (positions coalesce), and those come
    /// a few per source connection; past the bound the oldest position goes first, then the oldest event.
    static let limit = 64

    private struct State {
        var events: [LocationServiceEvent] = []
        var waiter: CheckedContinuation<LocationServiceEvent?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// The events as the one stream the service hands out.
    func stream() -> AsyncStream<LocationServiceEvent> {
        AsyncStream(unfolding: { [self] in await next() })
    }

    func append(_ event: LocationServiceEvent) {
        let waiter = state.withLock { state -> CheckedContinuation<LocationServiceEvent?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if case .position = event, case .position? = state.events.last {
                state.events[state.events.count - 1] = event
                return nil
            }
            if state.events.count >= Self.limit {
                let oldestPosition = state.events.firstIndex { if case .position = $0 { true } else { false } }
                state.events.remove(at: oldestPosition ?? 0)
            }
            state.events.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// Ends the stream once the reader has taken what is queued.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Events queued now (for tests of the bound).
    var count: Int {
        state.withLock { $0.events.count }
    }

    private func next() async -> LocationServiceEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> LocationServiceEvent?? in
                    if !state.events.isEmpty { return .some(state.events.removeFirst()) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
