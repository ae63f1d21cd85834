@_spi(ExperimentalCustomExecutors) import _Concurrency
@_spi(Executors) import BreezeSystem

/// The executors breezed's tasks run on: Dispatch's main executor, and this pool as the default (global) executor.
///
/// Why not Dispatch's global executor: on Linux, the first task it runs registers a worker thread with libdispatch's
/// thread-pool monitor, which then polls the pool once a second for the life of the process (a timer on
/// libdispatch's manager thread, `_dispatch_workq_monitor_pools`): a daemon with nothing to do woke 60 times a
/// minute. The pool's threads sleep each on its own parker; one of them (the timekeeper), and only one, until the
/// earliest delayed job, so that a timer coming due wakes one thread, not every idle one.
struct DaemonExecutors: ExecutorFactory {
    static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
    static var defaultExecutor: any TaskExecutor { TaskPool.shared }
}
