import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the two ends of a round trip run. On a virtual machine a thread woken on another processor costs a
/// hypervisor exit or two, tens of microseconds, and the scheduler decides afresh for each run whether a client and
/// its server share one: unpinned medians flip between the two costs from run to run. Pinned, each is measured alone.
enum Placement: CaseIterable {
    /// Where the scheduler puts them.
    case unpinned
    /// The server's threads and the client on processor 0: every wake-up stays on one processor.
    case sameProcessor
    /// The server's threads on processor 0, the client on processor 1: every wake-up crosses.
    case acrossProcessors
    /// As `acrossProcessors`, with a spinner at idle priority on each processor (`IdleSpinners`), so that neither
    /// halts while the other works: what is left of the crossing once the hypervisor's halts are gone.
    case acrossProcessorsAwake

    /// The placements this machine allows (one processor: only `unpinned` and `sameProcessor`).
    static var available: [Placement] {
        ProcessInfo.processInfo.activeProcessorCount > 1 ? allCases : [.unpinned, .sameProcessor]
    }

    /// How a figure's name says it; empty for `unpinned`, whose figures keep their names.
    var suffix: String {
        switch self {
        case .unpinned: ""
        case .sameProcessor: ", one processor"
        case .acrossProcessors: ", two processors"
        case .acrossProcessorsAwake: ", two processors kept awake"
        }
    }

    /// The processors for the server and for the client; nil for `unpinned`.
    var processors: (server: String, client: String)? {
        switch self {
        case .unpinned: nil
        case .sameProcessor: ("0", "0")
        case .acrossProcessors, .acrossProcessorsAwake: ("0", "1")
        }
    }

    /// Every processor, as `taskset` takes a list.
    static let all = "0-\(ProcessInfo.processInfo.activeProcessorCount - 1)"

    /// Sets the processors every thread of `pid` may run on (threads it starts later inherit them).
    static func pin(_ pid: Int32, to processors: String) {
        let result = ShortRun.run("/usr/bin/taskset", ["-a", "-p", "-c", processors, String(pid)])
        guard result.status == 0 else { fatalError("taskset could not pin \(pid) to \(processors)") }
    }

    /// Sets the processors of this process's main thread alone, the one that asks (its id is the process's).
    static func pinAsker(to processors: String) {
        let result = ShortRun.run("/usr/bin/taskset", ["-p", "-c", processors, String(getpid())])
        guard result.status == 0 else { fatalError("taskset could not pin the benchmark to \(processors)") }
    }

    /// Runs `body` with the server `pid` and the asking thread placed as this placement says, then lets both run
    /// anywhere again.
    func measure(server pid: Int32, _ body: () -> Void) {
        guard let processors else { return body() }
        Self.pin(pid, to: processors.server)
        Self.pinAsker(to: processors.client)
        keepingAwake(body)
        Self.pinAsker(to: Self.all)
        Self.pin(pid, to: Self.all)
    }

    /// Runs `body` with both processors kept from halting when the placement says so, and the asking thread on the
    /// client's processor.
    func keepingAwake(_ body: () -> Void) {
        guard self == .acrossProcessorsAwake, let processors else { return body() }
        let spinners = IdleSpinners(processors: [processors.server, processors.client].compactMap { Int($0) })
        Self.pinAsker(to: processors.client)
        body()
        spinners.stop()
    }
}
