import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The clock every scenario stops by: the load ends at `deadline`, or earlier when `stop()` is called.
final class SoakRun: Sendable {
    let deadline: ContinuousClock.Instant
    let socketPath: String
    private let stopped = Atomic<Bool>(false)

    init(seconds: Double, socketPath: String) {
        deadline = .now + .milliseconds(Int(seconds * 1000))
        self.socketPath = socketPath
    }

    var isOver: Bool { stopped.load(ordering: .relaxed) || ContinuousClock.now >= deadline }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Sleeps up to `seconds`, waking early when the run is over, so that no scenario outlives the load by more
    /// than one short step.
    func pause(_ seconds: Double) {
        let until = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !isOver, ContinuousClock.now < until { usleep(20_000) }
    }
}

/// A named count a scenario raises from its own thread and the report reads at the end.
final class Tally: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func add(_ key: String, _ amount: Int = 1) {
        counts.withLock { $0[key, default: 0] += amount }
    }

    subscript(key: String) -> Int { counts.withLock { $0[key] ?? 0 } }

    /// "key n, key n" in the order given, then any other keys alphabetically.
    func summary(_ order: [String] = []) -> String {
        let all = counts.withLock { $0 }
        let rest = all.keys.filter { !order.contains($0) }.sorted()
        return (order.filter { all[$0] != nil } + rest).map { "\($0) \(all[$0] ?? 0)" }.joined(separator: ", ")
    }
}

/// Runs `body` on a thread of its own; the returned semaphore is signalled when it returns.
func worker(_ name: String, _ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.name = name
    thread.start()
    return done
}
