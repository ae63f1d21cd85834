import BreezeSystem
import BreezeTestSupport
import Synchronization
import Testing

/// breezed's sleeps (`TimerThread`): each waiter resumes at its deadline, in deadline order, and a cancelled one at
/// once, with `CancellationError`.
@Suite(.timeLimit(.minutes(Int(TestTime.scale.rounded(.up)))))
struct TimerThreadTests {
    @Test func aSleepReturnsNoSoonerThanItsDeadline() async throws {
        let timers = TimerThread(name: "test.timer")
        let start = ContinuousClock.now
        try await timers.sleep(until: start + .milliseconds(50))
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test func aDeadlineInThePastReturnsAtOnce() async throws {
        let timers = TimerThread(name: "test.timer")
        let start = ContinuousClock.now
        try await timers.sleep(until: start - .seconds(1))
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func sleepersWakeInTheOrderOfTheirDeadlinesNotOfTheirStart() async throws {
        let timers = TimerThread(name: "test.timer")
        let woken = Woken()
        // Deadlines two seconds off (`TestTime`): when the whole suite starts at once on two processors the pool can
        // take over a second to start these tasks, and a sleep begun after its deadline returns at once, in the order
        // begun.
        let first = TestTime.deadline(after: 2)
        let deadlines = [1: first, 2: first + .milliseconds(300), 3: first + .milliseconds(600)]
        await withTaskGroup(of: Void.self) { group in
            // Started latest first, a tenth of a second apart: each new sleep is the earliest, and wakes the thread,
            // parked by then until the one before, to wait for it instead.
            for number in [3, 2, 1] {
                group.addTask {
                    try? await timers.sleep(until: deadlines[number]!)
                    woken.sleepers.withLock { $0.append((number, ContinuousClock.now)) }
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let sleepers = woken.sleepers.withLock { $0 }
        #expect(sleepers.map(\.number) == [1, 2, 3])
        for (number, time) in sleepers { #expect(time >= deadlines[number]!, "sleeper \(number) woke early") }
        // The thread waited for the first deadline, not for the third it was waiting for when the first was added.
        let firstWoke = try #require(sleepers.first { $0.number == 1 }).time
        #expect(firstWoke < deadlines[3]!)
    }

    /// The sleepers' numbers and times, as they woke.
    final class Woken: Sendable {
        let sleepers = Mutex<[(number: Int, time: ContinuousClock.Instant)]>([])
    }

    @Test func aCancelledSleepThrowsAtOnce() async {
        let timers = TimerThread(name: "test.timer")
        let start = ContinuousClock.now
        let sleeper = Task { try await timers.sleep(until: start + .seconds(3_600)) }
        try? await Task.sleep(for: .milliseconds(20))
        sleeper.cancel()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test func aSleepInACancelledTaskThrowsWithoutWaiting() async {
        let timers = TimerThread(name: "test.timer")
        let start = ContinuousClock.now
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await timers.sleep(until: start + .seconds(3_600))
        }
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
