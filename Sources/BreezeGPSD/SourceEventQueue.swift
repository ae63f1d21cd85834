import BreezeCore
import BreezeSystem
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

    private let mailbox = EventMailbox<LocationSourceEvent>()

    /// Hands `event` to the reader. Dropped once the queue is finished.
    func yield(_ event: LocationSourceEvent) {
        mailbox.post(event) { queued, event in
            if queued.count >= Self.limit { queued.removeFirst() }
            queued.append(event)
        }
    }

    /// Ends the stream once the reader has taken what is queued.
    func finish() {
        mailbox.finish()
    }

    /// The events as a stream. `ended` runs once the reader is gone: its task cancelled, or the stream dropped.
    func stream(ended: @escaping @Sendable () -> Void) -> AsyncStream<LocationSourceEvent> {
        let reader = Reader(mailbox: mailbox, ended: ended)
        return AsyncStream(unfolding: { await reader.next() }, onCancel: { reader.end() })
    }

    /// The stream's side: takes events, and tells the source when nobody reads any more.
    private final class Reader: Sendable {
        let mailbox: EventMailbox<LocationSourceEvent>
        private let ended: @Sendable () -> Void
        private let done = Atomic(false)

        init(mailbox: EventMailbox<LocationSourceEvent>, ended: @escaping @Sendable () -> Void) {
            self.mailbox = mailbox
            self.ended = ended
        }

        deinit { end() }

        func next() async -> LocationSourceEvent? {
            await mailbox.next()
        }

        func end() {
            if !done.exchange(true, ordering: .relaxed) { ended() }
        }
    }
}
