import Synchronization

/// Values handed from any thread to one async reader: a value goes straight to the reader when it waits, else into
/// a queue kept by the rule its owner gives (a bound, values that replace one another). `finish` ends the reading
/// once the queue is empty; a reader's task cancelled ends it at once.
///
/// Inlinable, so that each owner has it for its own element type: called through generic metadata (as an
/// `AsyncStream`'s buffer is), copying each value cost more than the work around it on gpsd's thread.
public final class EventMailbox<Element: Sendable>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var queued: [Element] = []
        @usableFromInline var waiter: UnsafeContinuation<Element?, Never>?
        @usableFromInline var finished = false

        @usableFromInline init() {}
    }

    @usableFromInline let state = Mutex(State())

    public init() {}

    /// Hands `value` to the waiting reader, or queues it with `enqueue` (given the queue and the value). Dropped once
    /// finished.
    @inlinable
    public func post(_ value: Element, enqueue: (inout [Element], Element) -> Void) {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            enqueue(&state.queued, value)
            return nil
        }
        waiter?.resume(returning: value)
    }

    /// Ends the reading once the reader has taken what is queued.
    @inlinable
    public func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next value, waiting for one; nil once finished and empty, or when the reading task is cancelled.
    @inlinable
    public func next() async -> Element? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                let ready = state.withLock { state -> Element?? in
                    if !state.queued.isEmpty { return .some(state.queued.removeFirst()) }
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

    /// Values queued now.
    public var count: Int {
        state.withLock { $0.queued.count }
    }
}
