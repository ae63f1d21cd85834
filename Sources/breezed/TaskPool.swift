@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Glibc

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

/// A fixed set of threads running jobs in the order given, and delayed jobs (`Task.sleep`) at their deadlines.
final class TaskPool: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    // @unchecked: `ready`, `head`, `delayed`, `running`, `idle` and `timekeeper` are touched only with `mutex` held;
    // the pointer and `parkers` are set once.

    /// As many threads as processors (at least two), as Dispatch's global executor is wide.
    static let shared = TaskPool(threads: max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Where each thread sleeps, by the thread's number. A thread is woken through its own parker, after `mutex` is
    /// let go (Parker.swift says why).
    private let parkers: [Parker]
    /// Jobs to run, from `head` on (taken from the front without moving the rest).
    private var ready: [UnownedJob] = []
    private var head = 0
    /// Delayed jobs by deadline (CLOCK_MONOTONIC nanoseconds), earliest first.
    private var delayed: [(deadline: UInt64, job: UnownedJob)] = []
    /// Threads not waiting: running a job, or about to take the next.
    private var running = 0
    /// Threads sleeping untimed until a job is ready, the last to sleep last. Waking one takes it off at once, so
    /// that a second job enqueued before the first thread runs wakes another thread, not the same one again.
    private var idle: [Int] = []
    /// The thread sleeping until the earliest delayed job, if one is. While none does (every thread is running a
    /// job), the first to finish its job becomes the timekeeper: delayed jobs are late by at most a job's length.
    private var timekeeper: Int?

    private init(threads: Int) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        parkers = (0..<threads).map { _ in Parker() }
        idle.reserveCapacity(threads)
        for number in 0..<threads {
            var thread = pthread_t()
            let start = Unmanaged.passRetained(Start(pool: self, number: number)).toOpaque()
            let created = pthread_create(&thread, nil, { start in
                let start = Unmanaged<Start>.fromOpaque(start!).takeRetainedValue()
                start.pool.work(number: start.number)
                return nil
            }, start)
            guard created == 0 else { fatalError("the task pool could not start a thread: \(created)") }
            pthread_detach(thread)
        }
    }

    /// What a new thread is given: its pool and its number.
    private final class Start {
        let pool: TaskPool
        let number: Int

        init(pool: TaskPool, number: Int) {
            self.pool = pool
            self.number = number
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        ready.append(job)
        // A thread that is running takes the job when it is done with its own; another is woken only for jobs
        // beyond those (a wake-up per job doubled the context switches of a fix's work, which is a chain of short
        // jobs, each enqueued by the one before).
        let woken = ready.count - head > running ? wakeOne() : nil
        pthread_mutex_unlock(mutex)
        woken?.unpark()
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
        var woken: Parker?
        if index == 0 {
            if let timekeeper {
                woken = parkers[timekeeper]
            } else if let number = idle.popLast() {
                woken = parkers[number]
            }
        }
        pthread_mutex_unlock(mutex)
        woken?.unpark()
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private func work(number: Int) {
        pthread_mutex_lock(mutex)
        running += 1
        pthread_mutex_unlock(mutex)
        while true {
            pthread_mutex_lock(mutex)
            let (job, woken) = next(number: number)
            pthread_mutex_unlock(mutex)
            woken?.unpark()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The next job for thread `number` to run, waiting for one, and the thread to wake for the jobs left beyond it
    /// (unparked once `mutex` is let go); `mutex` held.
    private func next(number: Int) -> (UnownedJob, Parker?) {
        while true {
            let now = Self.now()
            while let first = delayed.first, first.deadline <= now {
                ready.append(delayed.removeFirst().job)
            }
            if head < ready.count {
                let job = ready[head]
                head += 1
                var woken: Parker?
                if head == ready.count {
                    ready.removeAll(keepingCapacity: ready.count <= 1_024)
                    head = 0
                } else if ready.count - head >= running {
                    // More are ready than the other running threads take (delayed jobs come due together).
                    woken = wakeOne()
                }
                return (job, woken)
            }
            running -= 1
            if let first = delayed.first, timekeeper == nil {
                timekeeper = number
                pthread_mutex_unlock(mutex)
                parkers[number].park(until: first.deadline)
                pthread_mutex_lock(mutex)
                timekeeper = nil
            } else {
                idle.append(number)
                // A wake-up kept from an earlier turn (as timekeeper) may end a park early: sleep again until a
                // waker has taken this thread off the idle list.
                repeat {
                    pthread_mutex_unlock(mutex)
                    parkers[number].park(until: nil)
                    pthread_mutex_lock(mutex)
                } while idle.contains(number)
            }
            running += 1
        }
    }

    /// Takes a waiting thread off for a ready job: an idle one, else the timekeeper (which looks at the ready jobs
    /// before it waits again); `mutex` held. The caller unparks it once `mutex` is let go.
    private func wakeOne() -> Parker? {
        if let number = idle.popLast() { return parkers[number] }
        return timekeeper.map { parkers[$0] }
    }
}
