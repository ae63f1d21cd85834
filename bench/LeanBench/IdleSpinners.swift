import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One thread per processor that spins at the lowest priority there is (`SCHED_IDLE`), so that no processor ever
/// goes idle: on a virtual machine an idle processor halts, and waking it again is a hypervisor exit and a trip
/// through the host's scheduler. Any other thread takes the processor from a spinner at once, so what is measured
/// beside them is the work and the wake-ups without the halts: the part of a cross-processor round trip that is the
/// machine's and not the server's.
final class IdleSpinners: Sendable {
    /// Linux's `SCHED_IDLE` (<linux/sched.h>), which the C library defines only under `_GNU_SOURCE`.
    private static let idlePolicy: Int32 = 5

    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Int>(0)
    private let count: Int

    /// Starts a spinner on each processor in `processors`, and returns once each runs. A thread takes the processors
    /// of the thread that starts it (the C library declares `sched_setaffinity` only under `_GNU_SOURCE`), so the
    /// asking thread is pinned to each processor in turn to start its spinner there, and left pinned to the last:
    /// the caller pins it where it wants it next.
    init(processors: [Int]) {
        count = processors.count
        for processor in processors {
            Placement.pinAsker(to: String(processor))
            Thread.detachNewThread { [self] in
                var parameters = sched_param()
                guard sched_setscheduler(0, Self.idlePolicy, &parameters) == 0 else {
                    fatalError("a spinner could not take idle priority: \(String(cString: strerror(errno)))")
                }
                running.add(1, ordering: .releasing)
                while !stopping.load(ordering: .relaxed) {}
                running.subtract(1, ordering: .releasing)
            }
        }
        while running.load(ordering: .acquiring) < count { usleep(1_000) }
    }

    /// Stops every spinner, and returns once each has.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        while running.load(ordering: .acquiring) > 0 { usleep(1_000) }
    }
}
