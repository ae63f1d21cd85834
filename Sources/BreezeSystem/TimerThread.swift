import Glibc

/// A thread of its own that sleeps until the earliest deadline and then resumes the tasks waiting for it: breezed's
/// `sleep`, in place of `Task.sleep`, whose timers from Swift 6.2 on live on Dispatch's queues (and so wake a process
/// once a second for ever: `TaskPool.installAsGlobalExecutor` says why).
///
/// The thread sleeps untimed while nothing waits. A resumed task runs on its own executor, not on this thread.
public final class TimerThread: @unchecked Sendable {
    // @unchecked: `waiting`, `unadded`, `cancelled` and `nextID` are touched only with `mutex` held; the pointer and `parker`
    // are set once.

    /// A sleeping task: when it is due, and how to resume it.
    private struct Waiter {
        var deadline: UInt64
        var id: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let parker = Parker()
    /// The tasks sleeping, earliest deadline first.
    private var waiting: [Waiter] = []
    /// Sleeps begun whose waiter is not added yet, and those of them cancelled meanwhile (the cancellation handler
    /// can run first). Each id leaves both when its waiter is added.
    private var unadded: Set<Int> = []
    private var cancelled: Set<Int> = []
    private var nextID = 0

    /// Starts the thread, named `name`.
    public init(name: String = "breeze.timer") {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        DedicatedThread.start(name: name) { [self] in run() }
    }

    /// The monotonic time now, in nanoseconds (CLOCK_MONOTONIC).
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Returns once `deadline` has passed (at once if it has); throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let delay = ContinuousClock.now.duration(to: deadline)
        guard delay > .zero else { return try Task.checkCancellation() }
        let (seconds, attoseconds) = delay.components
        let nanoseconds = UInt64(min(seconds, 1 << 32)) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        let id = takeID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                add(Waiter(deadline: Self.now() + nanoseconds, id: id, continuation: continuation))
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func takeID() -> Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        nextID += 1
        unadded.insert(nextID)
        return nextID
    }

    private func add(_ waiter: Waiter) {
        pthread_mutex_lock(mutex)
        unadded.remove(waiter.id)
        if cancelled.remove(waiter.id) != nil {
            pthread_mutex_unlock(mutex)
            waiter.continuation.resume(throwing: CancellationError())
            return
        }
        let index = waiting.firstIndex { $0.deadline > waiter.deadline } ?? waiting.endIndex
        waiting.insert(waiter, at: index)
        pthread_mutex_unlock(mutex)
        // A new earliest deadline: the thread waits again, for this one.
        if index == 0 { parker.unpark() }
    }

    private func cancel(_ id: Int) {
        pthread_mutex_lock(mutex)
        guard let index = waiting.firstIndex(where: { $0.id == id }) else {
            // Not added yet: refused when it is. Otherwise already resumed, and nothing is left to do.
            if unadded.contains(id) { cancelled.insert(id) }
            pthread_mutex_unlock(mutex)
            return
        }
        let waiter = waiting.remove(at: index)
        pthread_mutex_unlock(mutex)
        waiter.continuation.resume(throwing: CancellationError())
    }

    private func run() {
        while true {
            pthread_mutex_lock(mutex)
            let now = Self.now()
            let due = waiting.prefix { $0.deadline <= now }
            waiting.removeFirst(due.count)
            let next = waiting.first?.deadline
            pthread_mutex_unlock(mutex)
            for waiter in due { waiter.continuation.resume() }
            if due.isEmpty { parker.park(until: next) }
        }
    }
}
