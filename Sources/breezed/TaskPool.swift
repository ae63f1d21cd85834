@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Glibc

/// The executors breezed's tasks run on: Dispatch's main executor, and this pool as the default (global) executor.
///
/// Why not Dispatch's global executor: on Linux, the first task it runs registers a worker thread with libdispatch's
/// thread-pool monitor, which then polls the pool once a second for the life of the process (a timer on
/// libdispatch's manager thread, `_dispatch_workq_monitor_pools`): a daemon with nothing to do woke 60 times a
/// minute. The pool's threads sleep on a condition variable; one of them (the timekeeper), and only one, until the
/// earliest delayed job, so that a timer coming due wakes one thread, not every idle one.
struct DaemonExecutors: ExecutorFactory {
    static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
    static var defaultExecutor: any TaskExecutor { TaskPool.shared }
}

/// A fixed set of threads running jobs in the order given, and delayed jobs (`Task.sleep`) at their deadlines.
final class TaskPool: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    // @unchecked: `ready`, `head`, `delayed`, `running`, `idle`, `permits` and `timekeeping` are touched only with
    // `mutex` held; the pointers are set once.

    /// As many threads as processors (at least two), as Dispatch's global executor is wide.
    static let shared = TaskPool(threads: max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Idle threads wait on this, untimed, for a job to be ready.
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// The timekeeper waits on this until the earliest delayed job (CLOCK_MONOTONIC), or for a job to be ready when
    /// no other thread is idle, or for an earlier deadline.
    private let timerCondition: UnsafeMutablePointer<pthread_cond_t>
    /// Jobs to run, from `head` on (taken from the front without moving the rest).
    private var ready: [UnownedJob] = []
    private var head = 0
    /// Delayed jobs by deadline (CLOCK_MONOTONIC nanoseconds), earliest first.
    private var delayed: [(deadline: UInt64, job: UnownedJob)] = []
    /// Threads not waiting: running a job, or about to take the next.
    private var running = 0
    /// Threads waiting on `condition` and not yet woken. Waking one moves it from here to `permits` at once, so
    /// that a second job enqueued before the first thread runs wakes another thread, not the same one again.
    private var idle = 0
    /// Wake-ups given to idle threads and not yet taken (each waiting thread leaves only with one).
    private var permits = 0
    /// A thread waits on `timerCondition` for the earliest delayed job. While none does (every thread is running a
    /// job), the first to finish its job becomes the timekeeper: delayed jobs are late by at most a job's length.
    private var timekeeping = false

    private init(threads: Int) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        timerCondition = .allocate(capacity: 1)
        timerCondition.initialize(to: pthread_cond_t())
        pthread_cond_init(timerCondition, &attributes)
        pthread_condattr_destroy(&attributes)
        for _ in 0..<threads {
            var thread = pthread_t()
            let pool = Unmanaged.passRetained(self).toOpaque()
            let created = pthread_create(&thread, nil, { pool in
                Unmanaged<TaskPool>.fromOpaque(pool!).takeRetainedValue().work()
                return nil
            }, pool)
            guard created == 0 else { fatalError("the task pool could not start a thread: \(created)") }
            pthread_detach(thread)
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        ready.append(job)
        // A thread that is running takes the job when it is done with its own; another is woken only for jobs
        // beyond those (a wake-up per job doubled the context switches of a fix's work, which is a chain of short
        // jobs, each enqueued by the one before).
        if ready.count - head > running { wakeOne() }
        pthread_mutex_unlock(mutex)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        // The clocks Task.sleep uses (continuous, suspending) measure in Duration; both run with CLOCK_MONOTONIC here
        // closely enough for a deadline (a suspended machine wakes the job late, never early).
        let nanoseconds: UInt64
        if let delay = delay as? Duration {
            let (seconds, attoseconds) = delay.components
            nanoseconds = seconds < 0 ? 0
                : UInt64(min(seconds, Int64(UInt32.max))) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
        } else {
            nanoseconds = 0
        }
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        let deadline = Self.now() + nanoseconds
        let index = delayed.firstIndex { $0.deadline > deadline } ?? delayed.endIndex
        delayed.insert((deadline, job), at: index)
        // A new earliest deadline: the timekeeper waits again for this one; with none, an idle thread becomes it.
        if index == 0 {
            if timekeeping {
                pthread_cond_signal(timerCondition)
            } else {
                wakeIdle()
            }
        }
        pthread_mutex_unlock(mutex)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private func work() {
        pthread_mutex_lock(mutex)
        running += 1
        pthread_mutex_unlock(mutex)
        while true {
            pthread_mutex_lock(mutex)
            let job = next()
            pthread_mutex_unlock(mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The next job to run, waiting for one; `mutex` held.
    private func next() -> UnownedJob {
        while true {
            let now = Self.now()
            while let first = delayed.first, first.deadline <= now {
                ready.append(delayed.removeFirst().job)
            }
            if head < ready.count {
                let job = ready[head]
                head += 1
                if head == ready.count {
                    ready.removeAll(keepingCapacity: ready.count <= 1_024)
                    head = 0
                } else if ready.count - head >= running {
                    // More are ready than the other running threads take (delayed jobs come due together).
                    wakeOne()
                }
                return job
            }
            running -= 1
            if let first = delayed.first, !timekeeping {
                timekeeping = true
                var until = timespec(
                    tv_sec: Int(first.deadline / 1_000_000_000), tv_nsec: Int(first.deadline % 1_000_000_000))
                pthread_cond_timedwait(timerCondition, mutex, &until)
                timekeeping = false
            } else {
                idle += 1
                repeat { pthread_cond_wait(condition, mutex) } while permits == 0
                permits -= 1
            }
            running += 1
        }
    }

    /// Wakes a waiting thread for a ready job: an idle one, else the timekeeper; `mutex` held.
    private func wakeOne() {
        if !wakeIdle(), timekeeping { pthread_cond_signal(timerCondition) }
    }

    /// Wakes an idle thread, if there is one; `mutex` held.
    @discardableResult
    private func wakeIdle() -> Bool {
        guard idle > 0 else { return false }
        idle -= 1
        permits += 1
        pthread_cond_signal(condition)
        return true
    }
}
