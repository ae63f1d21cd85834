import BreezeCore
import Synchronization

/// A clock that moves only when a test advances it: the services' timers fire at once, in order, and a test sees
/// every sleep that is waiting (so it can wait for a service to reach its next timer, an event, not a guess).
public final class ManualClock: ServiceClock {
    private struct Sleeper {
        let id: Int
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var elapsed: Duration = .zero
        var wallStart: Double
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let start = ContinuousClock.now
    private let state: Mutex<State>

    /// - Parameter wallTime: the calendar time at the start, seconds since 1970.
    public init(wallTime: Double = 1_800_000_000) {
        state = Mutex(State(wallStart: wallTime))
    }

    public var now: ContinuousClock.Instant { start + state.withLock { $0.elapsed } }

    public var wallTime: Double {
        state.withLock { state in
            let (seconds, attoseconds) = state.elapsed.components
            return state.wallStart + Double(seconds) + Double(attoseconds) / 1e18
        }
    }

    /// How far the clock has been advanced.
    public var elapsed: Duration { state.withLock { $0.elapsed } }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= start + state.elapsed { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                state.sleepers.firstIndex { $0.id == id }.map { state.sleepers.remove(at: $0) }
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The waiting sleeps, as durations from now (zero or more), soonest first.
    public var pendingSleeps: [Duration] {
        state.withLock { state in
            let now = start + state.elapsed
            return state.sleepers.map { now.duration(to: $0.deadline) }.sorted()
        }
    }

    /// Moves the clock on by `duration`, waking every sleep that is then due (soonest first).
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.elapsed += duration
            let now = start + state.elapsed
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (in real time, at most `timeout` seconds) until some sleep ends `after` from now, give or take a
    /// millisecond: the sign that a service has reached that timer. Returns whether it did.
    @discardableResult
    public func waitForSleep(_ after: Duration, timeout: Double = 20) async -> Bool {
        await waitUntil(timeout: timeout) { sleeps in
            sleeps.contains { abs(($0 - after) / .milliseconds(1)) < 1 }
        }
    }

    /// Waits (in real time, at most `timeout` seconds) until `condition` holds for the waiting sleeps.
    @discardableResult
    public func waitUntil(timeout: Double = 20, _ condition: ([Duration]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if condition(pendingSleeps) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition(pendingSleeps)
    }
}
