import BreezeCore
import BreezeData
import BreezeTestSupport
import BreezeWeb
import Foundation
import Testing

/// fetchAllData against the loopback fixture: independent datasets, faults, retries, the cache, and the budget.
@Suite struct DataPipelineTests {
    static let zurich = Place(
        id: 2657896, name: "Zurich", admin1: "Zurich", country: "Switzerland", countryCode: "CH", population: 341_730,
        coordinate: Coordinate(latitude: 47.3667, longitude: 8.55))
    static let sydney = Place(
        id: 2147714, name: "Sydney", admin1: "New South Wales", country: "Australia", countryCode: "AU",
        population: 4_627_345, coordinate: Coordinate(latitude: -33.8678, longitude: 151.2073))

    /// A pipeline on the fixture, publishing into a recorder.
    struct Rig {
        let fixture: WebFixture
        let budget: RequestBudget
        let pipeline: DataPipeline
        let updates = EventRecorder<(time: ContinuousClock.Instant, update: DataUpdate)>()
        /// The pipeline's log lines.
        let logged = EventRecorder<String>()
        let cacheFolder: String

        init(
            fixture: WebFixture, cacheFolder: String? = nil, limits: RequestBudget.Limits = .init(),
            timeout: Double = 5, clock: any ServiceClock = .system,
            configure: (inout DataPipeline.Configuration) -> Void = { _ in }
        ) {
            self.fixture = fixture
            let budget = RequestBudget(limits: limits)
            self.budget = budget
            let http = HTTPClient(userAgent: "breezed-tests/1", timeout: timeout, budget: budget)
            let sources = DataSources.web(http: http, endpoints: WebEndpoints(base: fixture.baseURL), googlePollenKey: nil)
            var configuration = DataPipeline.Configuration()
            configuration.settle = .milliseconds(50)
            configuration.retry = RetryBackoff(initial: 0.2, maximum: 2, multiplier: 2, jitter: 0)
            configure(&configuration)
            let folder = cacheFolder ?? TemporaryPaths.make("cache")
            self.cacheFolder = folder
            let recorder = updates
            let log = logged
            pipeline = DataPipeline(
                sources: sources, cache: DataCache(folder: folder), configuration: configuration, clock: clock,
                log: { log.append($0) }
            ) {
                recorder.append((ContinuousClock.now, $0))
            }
        }

        func statuses(_ dataset: Dataset) -> [DatasetStatus] {
            updates.all.filter { $0.update.dataset == dataset }.map(\.update.status)
        }

        func last(_ dataset: Dataset) -> DataUpdate? {
            updates.all.last { $0.update.dataset == dataset }?.update
        }

        func wait(_ dataset: Dataset, timeout: Double = 20, _ condition: @escaping (DatasetStatus) -> Bool) async -> Bool {
            await updates.wait(timeout: timeout) { events in
                events.last { $0.update.dataset == dataset }.map { condition($0.update.status) } ?? false
            }
        }
    }

    @Test func theThreeDatasetsArePublishedAsEachArrives() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        // Pollen (the air-quality path with pollen variables) stalls for 8 s; air quality must not wait for it. No
        // upper bound on when air arrives (the machine may be loaded): pollen still loading then is the proof.
        try await fixture.fault("stall", path: "/v1/air-quality", match: "birch_pollen", delay: 8)
        let rig = Rig(fixture: fixture, timeout: 10)
        let started = ContinuousClock.now
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await rig.wait(.air) { $0 == .fresh })
        #expect(await rig.wait(.climate) { $0 == .fresh })
        let airArrived = rig.updates.all.first { $0.update.dataset == .air && $0.update.status == .fresh }!.time
        #expect(rig.statuses(.pollen) == [.loading], "pollen still loading while air is in")
        #expect(await rig.wait(.pollen) { $0 == .fresh })
        let pollenArrived = rig.updates.all.first { $0.update.dataset == .pollen && $0.update.status == .fresh }!.time
        #expect(pollenArrived - started >= .seconds(8))
        #expect(airArrived < pollenArrived)
        if let state = rig.last(.air)?.state(as: AirQualityReport.self) {
            #expect(state.report?.usAQI == 27)
            #expect(state.place == Self.zurich)
        } else {
            Issue.record("no air update")
        }
        await rig.pipeline.stop()
    }

    @Test func pollenOutsideEuropeIsUnavailableNotAnError() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let rig = Rig(fixture: fixture)
        await rig.pipeline.fetchAllData(for: Self.sydney)
        #expect(await rig.wait(.pollen) { if case .unavailable = $0 { true } else { false } })
        #expect(rig.last(.pollen)?.status.reason?.contains("Europe") == true)
        await rig.pipeline.stop()
    }

    @Test func aFailureKeepsTheLastGoodDataMarkedStale() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let rig = Rig(fixture: fixture) { $0.freshness[.air] = 0.5 }
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await rig.wait(.air) { $0 == .fresh })
        try await fixture.fault("503", path: "/v1/air-quality", match: "us_aqi", count: 100, retryAfter: 0)
        #expect(await rig.wait(.air) { if case .stale = $0 { true } else { false } })
        guard let state = rig.last(.air)?.state(as: AirQualityReport.self) else { Issue.record("no air update"); return }
        #expect(state.report?.usAQI == 27, "the last good report is kept")
        #expect(state.status.reason?.contains("Service temporarily overloaded") == true, "\(state.status)")
        #expect(state.age(at: Date().timeIntervalSince1970)! >= 0.5)
        await rig.pipeline.stop()
    }

    /// A refresh that fails while the data is fresh leaves it fresh, with the failure beside it.
    @Test func aFailedRefreshLeavesFreshDataFreshWithTheFailure() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let rig = Rig(fixture: fixture)
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await rig.wait(.air) { $0 == .fresh })
        try await fixture.fault("503", path: "/v1/air-quality", match: "us_aqi", count: 100, retryAfter: 0)
        await rig.pipeline.refresh()
        #expect(await rig.updates.wait(timeout: 20) { events in
            events.last { $0.update.dataset == .air }?.update.lastFailure != nil
        })
        let update = try #require(rig.last(.air))
        #expect(update.status == .fresh, "\(update.status)")
        #expect(update.lastFailure?.contains("Service temporarily overloaded") == true, "\(update.lastFailure ?? "")")
        #expect(!rig.statuses(.air).contains { if case .stale = $0 { true } else { false } })
        await rig.pipeline.stop()
    }

    /// Ten minutes of the pipeline's clock offline (every air request failing alike): one log line for the reason,
    /// one for the recovery with the count, and one state published per change, however many retries.
    @Test func tenMinutesOfTheSameFailureAreOneLogLineAndOneState() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("503", path: "/v1/air-quality", match: "us_aqi", count: 1_000, retryAfter: 0)
        let clock = ManualClock()
        let rig = Rig(fixture: fixture, clock: clock) {
            $0.retry = RetryBackoff(initial: 10, maximum: 60, multiplier: 2, jitter: 0)
            $0.wallClockCheck = 100_000  // the other datasets' sleeps stay far from the retries'
        }
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await Self.settle(clock))
        var elapsed = 0.0
        for delay in [10.0, 20, 40] + Array(repeating: 60.0, count: 9) {
            #expect(await clock.waitForSleep(.seconds(delay)), "a retry after \(delay) s; waiting: \(clock.pendingSleeps)")
            clock.advance(by: .seconds(delay))
            elapsed += delay
        }
        #expect(elapsed >= 600)
        // The last attempt has failed once the run waits for the next, and its state says when that is.
        #expect(await clock.waitForSleep(.seconds(60)))
        #expect(rig.last(.air)?.retryAt == clock.wallTime + 60, "\(String(describing: rig.last(.air)?.retryAt))")
        let attempts = try await fixture.requests().filter { $0.query.contains("us_aqi") }.count
        #expect(attempts >= 12, "\(attempts)")
        let failedLines = rig.logged.all.filter { $0.hasPrefix("fetch.failed dataset=air") }
        #expect(failedLines.count == 1, "\(failedLines)")
        // Published after each attempt, the same state each time: one change for a watcher (loading, then failed).
        let statuses = rig.statuses(.air)
        #expect(statuses.first == .loading)
        #expect(statuses.count >= attempts && Set(statuses.dropFirst()).count == 1, "\(statuses)")

        try await fixture.reset()
        clock.advance(by: .seconds(60))
        #expect(await rig.wait(.air) { $0 == .fresh })
        let recovered = rig.logged.all.filter { $0.hasPrefix("fetch.recovered dataset=air") }
        #expect(recovered.count == 1 && recovered.first?.hasSuffix("failures=\(attempts)") == true, "\(recovered)")
        await rig.pipeline.stop()
    }

    /// Lets every dataset of a place past its settling time on `clock`, once each of them waits for it: a dataset
    /// that starts its settling sleep after the advance would wait for an advance that never comes.
    static func settle(_ clock: ManualClock, _ settle: Duration = .milliseconds(50)) async -> Bool {
        let datasets = Dataset.allCases.count
        let settling = await clock.waitUntil { sleeps in
            sleeps.count { abs(($0 - settle) / .milliseconds(1)) < 1 } == datasets
        }
        clock.advance(by: settle)
        return settling
    }

    @Test func retriesBackOffExponentiallyAndHonourRetryAfter() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("500", path: "/v1/air-quality", match: "us_aqi", count: 3)
        let clock = ManualClock()
        let rig = Rig(fixture: fixture, clock: clock)
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await Self.settle(clock))
        // Backoff 0.2, 0.4, 0.8 s (no jitter in this test): each retry waits for exactly that on the clock.
        for (failed, delay) in [(1, 0.2), (2, 0.4), (3, 0.8)] {
            #expect(await clock.waitForSleep(.seconds(delay)), "a retry after \(delay) s; waiting: \(clock.pendingSleeps)")
            #expect(try await fixture.requests().filter { $0.query.contains("us_aqi") }.count == failed)
            clock.advance(by: .seconds(delay))
        }
        #expect(await rig.wait(.air) { $0 == .fresh })
        #expect(rig.statuses(.air).first == .loading)
        #expect(rig.statuses(.air).contains { if case .failed(let reason) = $0 { reason.contains("500") } else { false } })
        #expect(try await fixture.requests().filter { $0.query.contains("us_aqi") }.count == 4)
        await rig.pipeline.stop()

        try await fixture.reset()
        try await fixture.fault("429", path: "/v1/air-quality", match: "us_aqi", retryAfter: 1.5)
        let secondClock = ManualClock()
        let second = Rig(fixture: fixture, clock: secondClock)
        await second.pipeline.fetchAllData(for: Self.zurich)
        #expect(await Self.settle(secondClock))
        // Retry-After 1.5 s is longer than the backoff's 0.2 s: it is what the retry waits for.
        #expect(await secondClock.waitForSleep(.seconds(1.5)), "waiting: \(secondClock.pendingSleeps)")
        #expect(try await fixture.requests().filter { $0.query.contains("us_aqi") }.count == 1)
        secondClock.advance(by: .seconds(1.5))
        #expect(await second.wait(.air) { $0 == .fresh })
        #expect(try await fixture.requests().filter { $0.query.contains("us_aqi") }.count == 2)
        await second.pipeline.stop()
    }

    @Test func aRefusedRequestIsNotHammered() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("400", path: "/v1/air-quality", match: "us_aqi", count: 100)
        let clock = ManualClock()
        let rig = Rig(fixture: fixture, clock: clock)
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await Self.settle(clock))
        #expect(await rig.wait(.air) { if case .failed = $0 { true } else { false } })
        #expect(rig.last(.air)?.status.reason?.contains("out of range") == true)
        // Refused: the next try waits an hour (refusedRetry), not the backoff's 0.2 s.
        #expect(await clock.waitForSleep(.seconds(3_600)), "waiting: \(clock.pendingSleeps)")
        clock.advance(by: .seconds(3_599))
        #expect(try await fixture.requests().filter { $0.query.contains("us_aqi") }.count == 1)
        clock.advance(by: .seconds(1))
        #expect(try await eventually(timeout: 20) {
            try await fixture.requests().filter { $0.query.contains("us_aqi") }.count == 2
        })
        await rig.pipeline.stop()
    }

    @Test func aColdStartShowsCachedDataAtOnceAndAnOutageKeepsIt() async throws {
        let fixture = try await WebFixture()
        let first = Rig(fixture: fixture)
        await first.pipeline.fetchAllData(for: Self.zurich)
        for dataset in Dataset.allCases { #expect(await first.wait(dataset) { $0 == .fresh }) }
        await first.pipeline.stop()
        fixture.stop()  // the network is gone

        // Within freshness: the restart shows the cached data as fresh, without a request.
        let restarted = Rig(fixture: fixture, cacheFolder: first.cacheFolder)
        await restarted.pipeline.fetchAllData(for: Self.zurich)
        for dataset in Dataset.allCases { #expect(await restarted.wait(dataset, timeout: 5) { $0 == .fresh }) }
        #expect(restarted.statuses(.air).first == .fresh)
        await restarted.pipeline.stop()

        // Past freshness, offline: the cached data is shown stale at once, and stays, with the reason.
        let offline = Rig(fixture: fixture, cacheFolder: first.cacheFolder, timeout: 1) { $0.freshness[.air] = 0 }
        await offline.pipeline.fetchAllData(for: Self.zurich)
        // The datasets load their caches side by side: another's update may come before air's.
        #expect(await offline.updates.wait(timeout: 5) { $0.contains { $0.update.dataset == .air } })
        #expect(offline.statuses(.air).first.map { if case .stale(nil) = $0 { true } else { false } } == true)
        #expect(await offline.wait(.air) { $0.reason?.contains("transport") == true })
        guard let state = offline.last(.air)?.state(as: AirQualityReport.self) else { Issue.record("no air update"); return }
        #expect(state.report?.usAQI == 27)
        #expect(state.fetchedAt != nil)
        await offline.pipeline.stop()
    }

    @Test func aCorruptCacheFileIsIgnored() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let folder = TemporaryPaths.make("cache")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("{\"place\":{\"id\":26578".utf8).write(to: URL(fileURLWithPath: "\(folder)/air-2657896.json"))
        let rig = Rig(fixture: fixture, cacheFolder: folder)
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await rig.wait(.air) { $0 == .fresh })
        #expect(rig.statuses(.air).first == .loading)
        // The next good fetch replaced it.
        #expect(DataCache(folder: folder).load(.air, for: Self.zurich, as: AirQualityReport.self)?.report.usAQI == 27)
        await rig.pipeline.stop()
    }

    @Test func aNewPlaceCancelsTheOldOnesFetchAndTheSamePlaceJoinsIt() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("stall", path: "/v1/air-quality", match: "latitude=47.3667", count: 10, delay: 3)
        let rig = Rig(fixture: fixture, timeout: 10)
        let zurichAirAsked: @Sendable () async throws -> [WebFixture.Request] = {
            try await fixture.requests().filter { $0.query.contains("latitude=47.3667") && $0.query.contains("us_aqi") }
        }
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(try await eventually(timeout: 20) { try await !zurichAirAsked().isEmpty }, "Zurich's air is asked for")
        await rig.pipeline.fetchAllData(for: Self.zurich)  // joins: no second request
        await rig.pipeline.fetchAllData(for: Self.sydney)
        #expect(await rig.wait(.air) { $0 == .fresh })
        // The stalled answer for Zurich comes after 3 s: whatever it would have caused has happened by then.
        #expect(try await eventually(timeout: 20) { try await zurichAirAsked().allSatisfy { $0.end != nil } })
        let afterSwitch = rig.updates.all.drop { $0.update.place.id != Self.sydney.id }
        #expect(afterSwitch.allSatisfy { $0.update.place.id == Self.sydney.id }, "nothing for Zurich after the switch")
        // Joining started nothing new: Zurich's air went through "loading" once, and was asked for at most once.
        let zurichStatuses = rig.updates.all.filter { $0.update.place.id == Self.zurich.id && $0.update.dataset == .air }
        #expect(zurichStatuses.map(\.update.status) == [.loading])
        #expect(try await zurichAirAsked().count <= 1)
        await rig.pipeline.stop()
    }

    @Test func aThousandLocationChangesStayWithinTheBudget() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        // Settling as the daemon does, but shorter; a budget as tight as a minute's default share. On the real
        // clock: the changes are paced as a moving machine makes them (the pauses are the test's input, not waits
        // for a condition), and what follows waits for each dataset with a deadline.
        let rig = Rig(fixture: fixture, limits: .init(perMinute: 60, perHour: 500, perDay: 2_000)) {
            $0.settle = .milliseconds(300)
        }
        let places = (0..<40).map { index in
            Place(
                id: 1_000 + index, name: "Place \(index)", admin1: nil, country: "Testland", countryCode: "TL",
                population: 1_000, coordinate: Coordinate(latitude: 40 + Double(index) * 0.1, longitude: 5))
        }
        var random = SplitMix64(seed: 7)
        let started = ContinuousClock.now
        for change in 0..<1_000 {
            await rig.pipeline.fetchAllData(for: places[Int(random.next() % 40)])
            // Mostly rapid changes, with a pause now and then long enough for one place to settle.
            try await Task.sleep(for: change % 250 == 249 ? .milliseconds(600) : .milliseconds(1))
        }
        let elapsed = ContinuousClock.now - started
        for dataset in Dataset.allCases {
            #expect(await rig.wait(dataset) { $0 == .fresh }, "\(dataset): \(summary(rig.statuses(dataset)))")
        }
        await rig.pipeline.stop()
        let requests = try await fixture.requests()
        print("1,000 location changes in \(elapsed): \(requests.count) requests (budget admitted \(rig.budget.total))")
        #expect(requests.count <= 60)
        #expect(requests.count == rig.budget.total)
        // No two requests for one place and dataset overlap in time.
        let byKey = Dictionary(grouping: requests) { request in
            request.path + "?" + request.query.split(separator: "&").filter { !$0.hasPrefix("timezone") }.joined(separator: "&")
        }
        for (key, group) in byKey {
            let sorted = group.sorted { $0.start < $1.start }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                #expect((a.end ?? .infinity) <= b.start, "overlapping fetches for \(key)")
            }
        }
    }

    @Test func withoutSettlingTheBudgetStillCapsRequests() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let rig = Rig(fixture: fixture, limits: .init(perMinute: 40, perHour: 500, perDay: 2_000)) {
            $0.settle = .zero
            $0.retry = RetryBackoff(initial: 30, maximum: 60, multiplier: 2, jitter: 0)
        }
        for change in 0..<1_000 {
            let place = Place(
                id: 5_000 + change, name: "P\(change)", admin1: nil, country: "Testland", countryCode: "TL",
                population: 1_000, coordinate: Coordinate(latitude: -40 + Double(change) * 0.01, longitude: 100))
            await rig.pipeline.fetchAllData(for: place)
            try await Task.sleep(for: .milliseconds(2))  // pacing: changes a little apart, as a moving machine makes them
        }
        #expect(await rig.updates.wait(timeout: 20) { $0.contains { $0.update.status.reason?.contains("over-budget") == true } })
        await rig.pipeline.stop()
        let requests = try await fixture.requests()
        print("1,000 location changes without settling: \(requests.count) requests sent")
        #expect(requests.count <= 40)
        #expect(rig.budget.total <= 40)
        #expect(rig.updates.all.contains { $0.update.status.reason?.contains("over-budget") == true })
    }
}
