@_spi(Executors) import BreezeSystem
import Glibc
import Synchronization
import Testing

/// The pool's loans of a thread (`TaskPool.lend`): the jobs a lending thread makes ready run on it before the loan
/// ends, up to the limit, and the rest on the pool's own threads.
@Suite(.timeLimit(.minutes(1)))
struct TaskPoolTests {
    /// Tasks on `pool`, each waiting for a resumption from outside; `resume` hands them their go, from any thread.
    final class Waiters: Sendable {
        /// What the waiting tasks and the lending thread share.
        final class Shared: Sendable {
            let continuations = Mutex<[UnsafeContinuation<Void, Never>]>([])
            let lendingThread = Mutex<pthread_t?>(nil)
            let ranOnLendingThread = Mutex(0)
            let ran = Mutex(0)
        }

        let shared = Shared()
        let tasks: [Task<Void, Never>]

        /// With `chained`, a task once run resumes the next waiter itself, as each job of a fix's work makes the
        /// next ready; the loan then resumes only the first.
        let chained: Bool

        init(_ count: Int, on pool: TaskPool, chained: Bool = false) async {
            self.chained = chained
            let shared = shared
            tasks = (0..<count).map { _ in
                Task(executorPreference: pool) {
                    await withUnsafeContinuation { continuation in
                        shared.continuations.withLock { $0.append(continuation) }
                    }
                    let here = pthread_self()
                    if shared.lendingThread.withLock({ $0 == here }) { shared.ranOnLendingThread.withLock { $0 += 1 } }
                    let before = shared.ran.withLock { ran in
                        defer { ran += 1 }
                        return ran
                    }
                    if chained, before + 1 < count { shared.continuations.withLock { $0[before + 1] }.resume() }
                }
            }
            while shared.continuations.withLock({ $0.count }) < count { await Task.yield() }
        }

        var ran: Int { shared.ran.withLock { $0 } }
        var ranOnLendingThread: Int { shared.ranOnLendingThread.withLock { $0 } }

        /// Lends a thread of its own to `pool`, resuming the waiters in the loan (every one, or the first of a chain);
        /// returns once the loan has ended, with how many tasks had run by then.
        func resumeInALoan(to pool: TaskPool) async -> Int {
            await withUnsafeContinuation { (done: UnsafeContinuation<Int, Never>) in
                let shared = shared
                let chained = chained
                DedicatedThread.start(name: "lender") {
                    shared.lendingThread.withLock { $0 = pthread_self() }
                    let continuations = shared.continuations.withLock { $0 }
                    pool.lend {
                        for continuation in chained ? Array(continuations.prefix(1)) : continuations {
                            continuation.resume()
                        }
                    }
                    done.resume(returning: shared.ran.withLock { $0 })
                }
            }
        }

        /// Waits up to `seconds` for every task to have run and ended; false when one has not (a task left
        /// waiting for ever is not awaited, so that the test fails instead of hanging).
        func allRun(within seconds: Int) async -> Bool {
            for _ in 0..<(seconds * 1_000) {
                if ran == tasks.count { break }
                try? await Task.sleep(for: .milliseconds(1))
            }
            guard ran == tasks.count else { return false }
            for task in tasks { await task.value }
            return true
        }
    }

    @Test func whatALoanMakesReadyRunsOnTheLendingThreadBeforeTheLoanEnds() async {
        let pool = TaskPool(threads: 2)
        // One job: a second ready at once would wake a sleeping thread to take it, as any enqueue does.
        let waiters = await Waiters(1, on: pool)
        // Every pool thread asleep: none is about to take a job on its own.
        while pool.sleepingThreads < 2 { try? await Task.sleep(for: .milliseconds(1)) }
        let wakeUps = pool.wakeUps
        let ranDuringLoan = await waiters.resumeInALoan(to: pool)
        #expect(ranDuringLoan == 1)
        #expect(waiters.ranOnLendingThread == 1)
        #expect(pool.wakeUps == wakeUps, "no pool thread is woken for the job the lending thread takes")
        #expect(await waiters.allRun(within: 10))
    }

    @Test func aLoanRunsAtMostItsLimitAndThePoolTheRest() async {
        let pool = TaskPool(threads: 1)
        let count = TaskPool.lentJobLimit + 36
        let waiters = await Waiters(count, on: pool)
        // The pool's one thread kept busy, so that only the lending thread takes jobs while the loan lasts.
        let busy = Atomic(false)
        let release = Atomic(false)
        let blocker = Task(executorPreference: pool) {
            busy.store(true, ordering: .releasing)
            while !release.load(ordering: .acquiring) { usleep(100) }
        }
        while !busy.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(1)) }

        let ranDuringLoan = await waiters.resumeInALoan(to: pool)
        #expect(ranDuringLoan == TaskPool.lentJobLimit)
        #expect(waiters.ranOnLendingThread == TaskPool.lentJobLimit)

        // The jobs left are the pool's: its thread takes them once it is free.
        release.store(true, ordering: .releasing)
        await blocker.value
        #expect(await waiters.allRun(within: 10))
    }

    @Test func aChainLongerThanTheLimitGoesOnOnAPoolThreadTheLoanWakes() async {
        let pool = TaskPool(threads: 2)
        let count = TaskPool.lentJobLimit + 36
        let waiters = await Waiters(count, on: pool, chained: true)
        while pool.sleepingThreads < 2 { try? await Task.sleep(for: .milliseconds(1)) }
        let wakeUps = pool.wakeUps
        // Each job makes only the next ready, so none wakes a pool thread while the loan lasts; the job left when
        // the loan ends has nobody to take it but a thread the loan wakes.
        // What had run when the loan ended is not counted: the woken thread may have gone on with the chain by then.
        _ = await waiters.resumeInALoan(to: pool)
        #expect(waiters.ranOnLendingThread == TaskPool.lentJobLimit)
        #expect(pool.wakeUps == wakeUps + 1, "one pool thread is woken, when the loan ends")
        #expect(await waiters.allRun(within: 10))
    }
}
