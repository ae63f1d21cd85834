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

    /// A test waiting for a condition on the waiting sleeps; checked whenever they change.
    private struct Watcher {
        let id: Int
        let condition: @Sendable ([Duration]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var elapsed: Duration = .zero
        var wallStart: Double
        var sleepers: [Sleeper] = []
        var watchers: [Watcher] = []
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
                let (resume, satisfied) = state.withLock { state -> (Result<Void, any Error>?, [Watcher]) in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if deadline <= start + state.elapsed { return (.success(()), []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, satisfiedWatchers(&state))
                }
                if let resume { continuation.resume(with: resume) }
                for watcher in satisfied { watcher.continuation.resume(returning: true) }
            }
        } onCancel: {
            let (sleeper, satisfied) = state.withLock { state in
                let sleeper = state.sleepers.firstIndex { $0.id == id }.map { state.sleepers.remove(at: $0) }
                return (sleeper, satisfiedWatchers(&state))
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            for watcher in satisfied { watcher.continuation.resume(returning: true) }
        }
    }

    /// The waiting sleeps, as durations from now (zero or more), soonest first.
    public var pendingSleeps: [Duration] {
        state.withLock { pendingSleeps($0) }
    }

    private func pendingSleeps(_ state: State) -> [Duration] {
        let now = start + state.elapsed
        return state.sleepers.map { now.duration(to: $0.deadline) }.sorted()
    }

    /// Takes out the watchers whose condition now holds, for the caller to resume once the lock is released.
    private func satisfiedWatchers(_ state: inout State) -> [Watcher] {
        guard !state.watchers.isEmpty else { return [] }
        let sleeps = pendingSleeps(state)
        let satisfied = state.watchers.filter { $0.condition(sleeps) }
        state.watchers.removeAll { watcher in satisfied.contains { $0.id == watcher.id } }
        return satisfied
    }

    /// Moves the clock on by `duration`, waking every sleep that is then due (soonest first).
    /// Moves the calendar time by `seconds` (back when negative) and leaves the monotonic time where it is: NTP
    /// stepping a clock that booted at a saved time, or a resume from suspend (the calendar moved on; the monotonic
    /// clock stood still). No sleep ends: they wait on the monotonic time.
    public func stepWallClock(by seconds: Double) {
        state.withLock { $0.wallStart += seconds }
    }

    public func advance(by duration: Duration) {
        let (due, satisfied) = state.withLock { state in
            state.elapsed += duration
            let now = start + state.elapsed
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return (due, satisfiedWatchers(&state))
        }
        for sleeper in due { sleeper.continuation.resume() }
        for watcher in satisfied { watcher.continuation.resume(returning: true) }
    }

    /// Waits (in real time, at most `timeout` seconds) until some sleep ends `after` from now, give or take a
    /// millisecond: the sign that a service has reached that timer. Returns whether it did.
    @discardableResult
    public func waitForSleep(_ after: Duration, timeout: Double = 20) async -> Bool {
        await waitUntil(timeout: timeout) { sleeps in
            sleeps.contains { abs(($0 - after) / .milliseconds(1)) < 1 }
        }
    }

    /// Waits (in real time, at most `timeout` seconds) until `condition` holds for the waiting sleeps. The
    /// condition is checked now and whenever a sleep starts or ends. Returns whether it held.
    @discardableResult
    public func waitUntil(timeout: Double = 20, _ condition: @escaping @Sendable ([Duration]) -> Bool) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        var timer: Task<Void, Never>?
        let held = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let holds = state.withLock { state in
                if condition(pendingSleeps(state)) { return true }
                state.watchers.append(Watcher(id: id, condition: condition, continuation: continuation))
                return false
            }
            if holds {
                continuation.resume(returning: true)
                return
            }
            // The deadline: the watcher, if still waiting then, is answered false.
            timer = Task { [weak self] in
                try? await Task.sleep(for: TestTime.duration(timeout))
                self?.giveUp(id)
            }
        }
        timer?.cancel()
        return held
    }

    private func giveUp(_ id: Int) {
        let watcher = state.withLock { state in
            state.watchers.firstIndex { $0.id == id }.map { state.watchers.remove(at: $0) }
        }
        watcher?.continuation.resume(returning: false)
    }
}
