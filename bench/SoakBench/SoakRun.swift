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

/// Runs `body` on a thread of its own; the returned semaphore is signalled when it returns. With `unprivileged`,
/// the thread first becomes `nobody` (see `becomeNobody`).
func worker(_ name: String, unprivileged: Bool = false, _ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        if unprivileged { becomeNobody() }
        body()
        done.signal()
    }
    thread.name = name
    thread.start()
    return done
}

/// The kernel's `syscall(2)` entry, declared with fixed integer arguments: Swift does not import the variadic C
/// prototype, and for integer arguments the two calls are the same on Linux's x86-64 and arm64 ABIs.
@_silgen_name("syscall")
private func rawSystemCall(_ number: Int, _ a: Int, _ b: Int, _ c: Int) -> Int

/// Makes the calling thread, and only it, user and group `nobody` (65534) with no supplementary groups, when the
/// process runs as root: the hostile clients then connect as an unprivileged local user would, whom breezed does
/// not trust. Linux keeps credentials per thread, and the raw system calls (unlike glibc's wrappers, which change
/// every thread) leave the rest of the bench, breezectl's runs included, as they are. Elsewhere it does nothing.
func becomeNobody() {
    guard geteuid() == 0 else { return }
    // Glibc's SYS_ constants are macros Swift does not import: the numbers from <asm/unistd.h>.
    #if arch(x86_64)
    let (setgroups, setresuid, setresgid) = (116, 117, 119)
    #elseif arch(arm64)
    let (setgroups, setresuid, setresgid) = (159, 147, 149)
    #else
    return
    #endif
    let nobody = 65_534
    _ = rawSystemCall(setgroups, 0, 0, 0)
    _ = rawSystemCall(setresgid, nobody, nobody, nobody)
    _ = rawSystemCall(setresuid, nobody, nobody, nobody)
}

/// Whether hostile clients connect as `nobody` (the bench runs as root) or as the bench's own user, whom breezed
/// trusts like its own.
var hostileClientsAreUnprivileged: Bool { geteuid() == 0 }
