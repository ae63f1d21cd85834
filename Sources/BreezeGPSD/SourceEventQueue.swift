import BreezeCore
import Synchronization

/// The events of gpsd's thread on their way to the one task reading them, as `events()`'s stream.
///
/// What an `AsyncStream` continuation does, for this one element type: an event goes straight to a reader that waits,
/// else into a queue of at most `limit`, the oldest dropped past it (as `.bufferingNewest(limit)`). The stream's own
/// buffer is generic code the compiler cannot specialize from here: every fix paid for copying the event through
/// its metadata, a tenth of a moving receiver's CPU.
final class SourceEventQueue: Sendable {
    /// Events held for a reader that is behind.
    static let limit = 256

    private struct State {
        var events: [LocationSourceEvent] = []
        var waiter: UnsafeContinuation<LocationSourceEvent?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Hands `event` to the reader. Dropped once the queue is finished.
    func yield(_ event: LocationSourceEvent) {
        let waiter = state.withLock { state -> UnsafeContinuation<LocationSourceEvent?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.events.count >= Self.limit { state.events.removeFirst() }
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

    /// The events as a stream. `ended` runs once the reader is gone: its task cancelled, or the stream dropped.
    func stream(ended: @escaping @Sendable () -> Void) -> AsyncStream<LocationSourceEvent> {
        let reader = Reader(queue: self, ended: ended)
        return AsyncStream(unfolding: { await reader.next() }, onCancel: { reader.end() })
    }

    /// The stream's side: takes events, and tells the source when nobody reads any more.
    private final class Reader: Sendable {
        let queue: SourceEventQueue
        private let ended: @Sendable () -> Void
        private let done = Atomic(false)

        init(queue: SourceEventQueue, ended: @escaping @Sendable () -> Void) {
            self.queue = queue
            self.ended = ended
        }

        deinit { end() }

        func next() async -> LocationSourceEvent? {
            await queue.next()
        }

        func end() {
            if !done.exchange(true, ordering: .relaxed) { ended() }
        }
    }

    private func next() async -> LocationSourceEvent? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                let ready = state.withLock { state -> LocationSourceEvent?? in
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
