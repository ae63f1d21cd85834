import Glibc

/// A fixed set of threads running jobs in the order given: the global executor of breezed's tasks
/// (`installAsGlobalExecutor` says why not Dispatch's). A thread of another kind may lend itself to the pool, to run
/// the jobs that are ready as it hands work on (`lend`). Delayed work is not the pool's: a sleep waits on a
/// `TimerThread` and resumes here. SPI: for the daemon's executable and for tests.
@_spi(Executors) public final class TaskPool: TaskExecutor, @unchecked Sendable {
    // @unchecked: `ready`, `head`, `running`, `idle` and `wakeCount` are touched only with `mutex` held; the pointer
    // and `parkers` are set once.

    /// As many threads as processors (at least two), as Dispatch's global executor is wide.
    public static let shared = TaskPool(threads: max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Where each thread sleeps, by the thread's number. A thread is woken through its own parker, after `mutex` is
    /// let go (Parker.swift says why).
    private let parkers: [Parker]
    /// Jobs to run, from `head` on (taken from the front without moving the rest).
    private var ready: [UnownedJob] = []
    private var head = 0
    /// Threads not waiting: running a job, or about to take the next; a lent thread among them for its whole loan.
    private var running = 0
    /// Threads sleeping untimed until a job is ready, the last to sleep last. Waking one takes it off at once, so
    /// that a second job enqueued before the first thread runs wakes another thread, not the same one again.
    private var idle: [Int] = []
    /// Sleeping threads woken for a job, since the pool was made.
    private var wakeCount = 0

    /// A pool of `threads` threads (at least one), started at once. breezed has one, `shared`; tests make their own.
    public init(threads: Int) {
        let threads = max(1, threads)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        parkers = (0..<threads).map { _ in Parker() }
        idle.reserveCapacity(threads)
        for number in 0..<threads {
            var thread = pthread_t()
            let start = Unmanaged.passRetained(Start(pool: self, number: number)).toOpaque()
            let created = pthread_create(
                &thread, nil,
                { start in
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

    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }

    /// Runs `job` when a thread is free.
    public func enqueue(_ job: UnownedJob) {
        pthread_mutex_lock(mutex)
        ready.append(job)
        // A thread that is running takes the job when it is done with its own; another is woken only for jobs
        // beyond those (a wake-up per job doubled the context switches of a fix's work, which is a chain of short
        // jobs, each enqueued by the one before).
        let woken = ready.count - head > running ? wakeOne() : nil
        pthread_mutex_unlock(mutex)
        woken?.unpark()
    }

    /// The most jobs a lent thread takes before it goes back to its own work; for the jobs left, the loan wakes a
    /// pool thread (which wakes another if more are left than it takes).
    ///
    /// A count, not a time: a job runs to its end however long it is, and one job may be long (an actor's turn
    /// runs every message queued for it; saving the state on a new place syncs a file). The lending thread's own
    /// work waits meanwhile; for gpsd's reader that is the next lines, which gpsd keeps in the socket.
    public static let lentJobLimit = 64

    /// A loan of the calling thread (not one of the pool's, and not within a loan) to the pool (`ThreadLoan`): runs
    /// `body`, then the ready jobs, whichever they are, on this thread, until none is left or it has taken
    /// `lentJobLimit`. It counts as a running thread meanwhile, so the job `body` makes ready wakes no pool thread:
    /// it is this thread's to take, as the next job a pool thread enqueues is that thread's.
    public func lend(_ body: () -> Void) {
        pthread_mutex_lock(mutex)
        running += 1
        pthread_mutex_unlock(mutex)
        body()
        for _ in 0..<Self.lentJobLimit {
            pthread_mutex_lock(mutex)
            guard let job = takeReady() else {
                running -= 1
                pthread_mutex_unlock(mutex)
                return
            }
            pthread_mutex_unlock(mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        pthread_mutex_lock(mutex)
        running -= 1
        let woken = ready.count - head > running ? wakeOne() : nil
        pthread_mutex_unlock(mutex)
        woken?.unpark()
    }

    /// Threads asleep: all of them once the pool has nothing to do.
    public var sleepingThreads: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return idle.count
    }

    /// How many times a sleeping thread has been woken for a job, since the pool was made.
    public var wakeUps: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return wakeCount
    }

    /// This pool's loans of a thread (`lend`), as the threads that hand work on take them.
    public var threadLoan: ThreadLoan {
        ThreadLoan { self.lend($0) }
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
            if let job = takeReady() {
                // More are ready than the other running threads take.
                return (job, ready.count - head >= running ? wakeOne() : nil)
            }
            running -= 1
            idle.append(number)
            // A wake-up kept from an earlier turn may end a park early: sleep again until a waker has taken this
            // thread off the idle list.
            repeat {
                pthread_mutex_unlock(mutex)
                parkers[number].park(until: nil)
                pthread_mutex_lock(mutex)
            } while idle.contains(number)
            running += 1
        }
    }

    /// The first ready job, taken off; `mutex` held.
    private func takeReady() -> UnownedJob? {
        guard head < ready.count else { return nil }
        let job = ready[head]
        head += 1
        if head == ready.count {
            ready.removeAll(keepingCapacity: ready.count <= 1_024)
            head = 0
        }
        return job
    }

    /// Takes an idle thread off its wait for a ready job; `mutex` held. The caller unparks it once `mutex` is let go.
    private func wakeOne() -> Parker? {
        let woken = idle.popLast().map { parkers[$0] }
        if woken != nil { wakeCount += 1 }
        return woken
    }
}
