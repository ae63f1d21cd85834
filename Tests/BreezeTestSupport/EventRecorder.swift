import Foundation
import Synchronization

/// Collects what a stream yields, so a test can wait for a condition with a deadline (no fixed sleeps).
public final class EventRecorder<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])

    public init() {}

    public func append(_ event: Event) {
        events.withLock { $0.append(event) }
    }

    public var all: [Event] {
        events.withLock { $0 }
    }

    /// Waits until `condition` holds for the events so far, or `timeout` seconds pass. Returns whether it held.
    @discardableResult
    public func wait(timeout: Double, until condition: ([Event]) -> Bool) async -> Bool {
        let deadline = TestTime.deadline(after: timeout)
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(all)
    }
}
