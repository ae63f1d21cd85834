import BreezeCore
import BreezeData
import BreezeProtocol
import BreezeTestSupport
import Foundation
import Testing

/// The wall clock moving while the monotonic clock does not: a Raspberry Pi booted at a saved time that NTP steps
/// forward by days, a small step back, a laptop resumed after two days of suspend, a boot at 1970. Ages are wall time;
/// data that turns out old is said to be stale at once and fetched again within the wall-clock check (30 s).
@Suite struct WallClockStepTests {
    typealias Rig = DataPipelineTests.Rig
    static let day = 86_400.0

    /// The air quality requests the fixture has answered.
    static func airRequests(_ fixture: WebFixture) async throws -> Int {
        try await fixture.requests().filter { $0.query.contains("us_aqi") }.count
    }

    /// Fetches every dataset once on `clock`, and returns when air is fresh.
    static func fetchFresh(_ rig: Rig, _ clock: ManualClock) async -> Bool {
        await rig.pipeline.fetchAllData(for: DataPipelineTests.zurich)
        guard await DataPipelineTests.settle(clock) else { return false }
        return await rig.wait(.air) { $0 == .fresh }
    }

    /// Steps the wall clock by `seconds`, then lets the monotonic clock run `check` on: the runs wake and judge their
    /// data again.
    static func step(_ clock: ManualClock, by seconds: Double, thenRun check: Duration = .seconds(30)) async -> Bool {
        clock.stepWallClock(by: seconds)
        // Every dataset's run waits for its next look at the wall clock before the monotonic clock moves.
        let waiting = await clock.waitUntil { sleeps in sleeps.count >= Dataset.allCases.count }
        clock.advance(by: check)
        return waiting
    }

    @Test func aClockSteppedForwardDaysAfterBootFetchesAgainWithinAMinute() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let trueTime = Date().timeIntervalSince1970
        // Booted at a saved time three days behind; the data fetched then carries that time.
        let clock = ManualClock(wallTime: trueTime - 3 * Self.day)
        let rig = Rig(fixture: fixture, clock: clock)
        #expect(await Self.fetchFresh(rig, clock))
        #expect(try await Self.airRequests(fixture) == 1)
        let before = rig.updates.all.count

        // NTP steps the clock to the true time; 30 s later on the monotonic clock (within a minute) the data is
        // found three days old: stale at once, then fetched again.
        #expect(await Self.step(clock, by: 3 * Self.day))
        #expect(await rig.updates.wait(timeout: 20) { updates in
            updates.dropFirst(before).contains { $0.update.dataset == .air && $0.update.status == .fresh }
        })
        #expect(try await Self.airRequests(fixture) == 2)
        let air = rig.updates.all.dropFirst(before).filter { $0.update.dataset == .air }.map(\.update)
        #expect(air.first?.status == .stale(reason: nil), "\(air.map(\.status))")
        // Nothing published after the step is fresh and days old.
        for update in air where update.status == .fresh {
            #expect(try #require(update.fetchedAt) >= trueTime - 60, "fresh, fetched at \(update.fetchedAt ?? 0)")
        }
        await rig.pipeline.stop()
    }

    @Test func aResumeAfterTwoDaysOfSuspendFetchesAgainWithin90Seconds() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let clock = ManualClock(wallTime: Date().timeIntervalSince1970)
        let rig = Rig(fixture: fixture, clock: clock)
        #expect(await Self.fetchFresh(rig, clock))
        let before = rig.updates.all.count
        // Two days of suspend: the calendar moved on, the monotonic clock stood still.
        #expect(await Self.step(clock, by: 2 * Self.day))
        #expect(await rig.updates.wait(timeout: 20) { updates in
            updates.dropFirst(before).contains { $0.update.dataset == .air && $0.update.status == .fresh }
        })
        #expect(try await Self.airRequests(fixture) == 2)
        await rig.pipeline.stop()
    }

    @Test func aStepBackNeverGivesANegativeAgeNorAFetch() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let clock = ManualClock(wallTime: Date().timeIntervalSince1970)
        let rig = Rig(fixture: fixture, clock: clock)
        #expect(await Self.fetchFresh(rig, clock))
        // Ten minutes back: the data was fetched "in the future"; its age is zero, never negative, and it is no
        // older than it was, so nothing is fetched.
        #expect(await Self.step(clock, by: -600))
        #expect(await clock.waitUntil { sleeps in sleeps.count >= Dataset.allCases.count })
        let update = try #require(rig.last(.air))
        #expect(update.status == .fresh)
        let state = try #require(update.state(as: AirQualityReport.self))
        #expect(state.age(at: clock.wallTime) == 0)
        let message = DatasetMessage.message(state, now: clock.wallTime)
        #expect(message["age_s"] == .number(0))
        #expect(try await Self.airRequests(fixture) == 1)
        await rig.pipeline.stop()
    }

    @Test func fromNineteenSeventyToNowNothingBreaks() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        // A board without a real-time clock and without a saved time boots at the epoch.
        let clock = ManualClock(wallTime: 0)
        let cacheFolder = TemporaryPaths.make("cache")
        let rig = Rig(fixture: fixture, cacheFolder: cacheFolder, clock: clock)
        #expect(await Self.fetchFresh(rig, clock))
        let before = rig.updates.all.count
        let trueTime = Date().timeIntervalSince1970
        #expect(await Self.step(clock, by: trueTime))
        #expect(await rig.updates.wait(timeout: 20) { updates in
            updates.dropFirst(before).contains { $0.update.dataset == .air && $0.update.status == .fresh }
        })
        let fresh = try #require(rig.last(.air))
        #expect(try #require(fresh.fetchedAt) >= trueTime)
        await rig.pipeline.stop()
        // What the cache keeps is the data fetched at the true time, which a restart shows.
        let restarted = Rig(fixture: fixture, cacheFolder: cacheFolder, clock: ManualClock(wallTime: trueTime + 60))
        await restarted.pipeline.fetchAllData(for: DataPipelineTests.zurich)
        #expect(await restarted.wait(.air, timeout: 5) { $0 == .fresh })
        await restarted.pipeline.stop()
    }
}
