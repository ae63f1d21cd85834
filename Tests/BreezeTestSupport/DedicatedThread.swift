import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs CPU-heavy test work on a thread of its own, at a lower scheduling priority, so that it neither holds a
/// thread of the cooperative pool (one per core) nor slows the programs other tests talk to (gpsd, gpsfake).
public func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            #if os(Linux)
            // On Linux the nice value is per thread: "0" is the calling thread, and only it is lowered.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            #endif
            continuation.resume(returning: body())
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
