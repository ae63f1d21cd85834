internal import CConcurrencyHooks

extension TaskPool {
    /// Makes this pool the executor of every job meant for Swift's global executor, in this process, from now on.
    /// Call it once, before the first task that is not the main one.
    ///
    /// Why not Dispatch's global executor: on Linux, the first job it runs registers a worker thread with
    /// libdispatch's thread-pool monitor, a timer on libdispatch's manager thread that then fires once a second for
    /// the life of the process (`_dispatch_workq_monitor_pools`). Measured on breezed idle: 60 wake-ups a minute with
    /// Dispatch's executor against 0 with this pool, whose threads sleep until a job comes; the budget is 0.
    ///
    /// How: the runtime's global-executor hook (CConcurrencyHooks/shim.h), the one way to replace that executor
    /// that Swift 6.0 to 6.3 share; a task executor preference is not enough, as a new task's first job still goes
    /// to the global executor. Sleeps bypass the hook from Swift 6.2 on (`Task.sleep` asks Dispatch for its timer
    /// directly), so breezed sleeps only through its clock, a `TimerThread`.
    public func installAsGlobalExecutor() {
        globalPool = self
        CConcurrencyHooks_setEnqueueGlobalHook { job, _ in
            globalPool!.enqueue(unsafeBitCast(job, to: UnownedJob.self))
        }
    }
}

/// The pool the hook hands jobs to: set once, before the hook is, and never again.
nonisolated(unsafe) private var globalPool: TaskPool?
