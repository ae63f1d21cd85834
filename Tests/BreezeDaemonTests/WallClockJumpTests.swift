import BreezeTestSupport
import Foundation
import Testing

/// breezed in a process whose wall clock jumps while its monotonic clock runs on, as on a Raspberry Pi without a
/// real-time clock (booted at a saved time or at 1970, then set by NTP) or a laptop resumed from suspend. The jumps
/// come from libfaketime, which reads the offset from a file at every call; breezectl runs under the same clock, as a
/// user's would (its dynamic build: a static executable cannot be preloaded). WallClockStepTests drives the same
/// cases through the pipeline's injected clock.
@Suite struct WallClockJumpTests {
    /// The wall clock of the processes started with `environment`: the real one moved by an offset in a file.
    struct FakeWallClock {
        let file: String

        /// libfaketime from Debian's package, for this machine's architecture.
        static let library: String? = {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
            return names.filter { $0.hasSuffix("-linux-gnu") }.map { "/usr/lib/\($0)/faketime/libfaketime.so.1" }
                .first { FileManager.default.fileExists(atPath: $0) }
        }()

        init(folder: String, offset: String) throws {
            file = folder + "/faketime"
            try set(offset)
        }

        /// libfaketime's offsets: "+0", "-3d", "+2d", "-10m", or seconds ("-1796000000").
        func set(_ offset: String) throws {
            try (offset + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        }

        var environment: [String: String] {
            [
                "LD_PRELOAD": Self.library ?? "", "FAKETIME_TIMESTAMP_FILE": file, "FAKETIME_NO_CACHE": "1",
                "DONT_FAKE_MONOTONIC": "1",
            ]
        }
    }

    /// A daemon for Bern with its data from a loopback fixture, under `clock`.
    struct Rig {
        let fixture: WebFixture
        let clock: FakeWallClock
        let daemon: BreezedProcess

        /// - Parameter configuration: breezed.conf's text, if any.
        init(offset: String, configuration: String? = nil) async throws {
            fixture = try await WebFixture()
            let folder = try BreezedProcess.makeFolder()
            clock = try FakeWallClock(folder: folder, offset: offset)
            var arguments = [
                "--no-gpsd", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString, "--fallback-city", "Bern",
            ]
            if let configuration {
                try configuration.write(toFile: folder + "/breezed.conf", atomically: true, encoding: .utf8)
                arguments += ["--config", folder + "/breezed.conf"]
            }
            daemon = try await BreezedProcess(folder: folder, arguments, environment: clock.environment)
        }

        /// breezectl on the daemon's socket, under the daemon's clock.
        func ctl(_ arguments: [String]) async throws -> BreezedProcess.Result {
            try await BreezedProcess.breezectl(["--socket", daemon.socket] + arguments, environment: clock.environment)
        }

        /// The air quality object once it is fresh (at most 30 s).
        func freshAir() async throws -> [String: Any] {
            let deadline = ContinuousClock.now + .seconds(30)
            var air = object(try await ctl(["air", "--json"]).output)
            while air["state"] as? String != "fresh" && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                air = object(try await ctl(["air", "--json"]).output)
            }
            return air
        }

        /// The air-quality requests the fixture has answered.
        func airRequests() async throws -> Int {
            try await fixture.requests().filter { $0.path == "/v1/air-quality" && $0.query.contains("us_aqi") }.count
        }

        /// The status's air-quality heading, as the user sees it.
        func airHeading() async throws -> String {
            let status = try await ctl(["status"])
            return status.output.split(separator: "\n").first { $0.hasPrefix("Air quality") }.map(String.init) ?? ""
        }

        func stop() async {
            await daemon.stop()
            fixture.stop()
        }
    }

    /// "(fresh, 3 days old)": what must never be shown.
    static func isFreshAndDaysOld(_ heading: String) -> Bool {
        heading.range(of: #"fresh, [0-9]+ days old"#, options: .regularExpression) != nil
    }

    /// Waits (at most `timeout` seconds) for a new air request, checking what status shows meanwhile; returns the
    /// seconds it took, or nil.
    static func secondsToNextFetch(_ rig: Rig, after requests: Int, timeout: Double) async throws -> (Double?, [String]) {
        let started = ContinuousClock.now
        var headings: [String] = []
        while ContinuousClock.now - started < .seconds(timeout) {
            if try await rig.airRequests() > requests {
                let (seconds, attoseconds) = (ContinuousClock.now - started).components
                return (Double(seconds) + Double(attoseconds) / 1e18, headings)
            }
            headings.append(try await rig.airHeading())
            try await Task.sleep(for: .milliseconds(500))
        }
        return (nil, headings)
    }

    @Test(.enabled(if: FakeWallClock.library != nil, "needs libfaketime (apt-get install libfaketime)"))
    func bootedThreeDaysBehindThenSteppedToNowFetchesWithinAMinute() async throws {
        let rig = try await Rig(offset: "-3d")
        let air = try await rig.freshAir()
        #expect(air["state"] as? String == "fresh", "\(air)")
        let requests = try await rig.airRequests()
        #expect(!Self.isFreshAndDaysOld(try await rig.airHeading()))

        try rig.clock.set("+0")
        let (seconds, headings) = try await Self.secondsToNextFetch(rig, after: requests, timeout: 60)
        #expect(seconds != nil, "no fetch within a minute of the step")
        #expect(!headings.contains(where: Self.isFreshAndDaysOld), "\(headings)")
        let again = try await rig.freshAir()
        let heading = try await rig.airHeading()
        #expect(again["age_s"] as? Double ?? .infinity < 120, "\(again)")
        #expect(heading.hasPrefix("Air quality (fresh") && !heading.contains("days"), "\(heading)")
        await rig.stop()
    }

    @Test(.enabled(if: FakeWallClock.library != nil, "needs libfaketime (apt-get install libfaketime)"))
    func aStepBackOfTenMinutesGivesNoNegativeAgeAndNoFetch() async throws {
        let rig = try await Rig(offset: "+0")
        #expect(try await rig.freshAir()["state"] as? String == "fresh")
        let requests = try await rig.airRequests()

        try rig.clock.set("-10m")
        // Past the daemon's wall-clock check (30 s): it has judged its data again.
        try await Task.sleep(for: .seconds(35))
        let air = object(try await rig.ctl(["air", "--json"]).output)
        #expect(air["state"] as? String == "fresh", "\(air)")
        #expect((air["age_s"] as? Double).map { $0 >= 0 } == true, "\(air)")
        let heading = try await rig.airHeading()
        #expect(heading.hasPrefix("Air quality (fresh") && !heading.contains("-"), "\(heading)")
        #expect(try await rig.airRequests() == requests, "data fetched 10 minutes 'from now' is still fresh")
        await rig.stop()
    }

    @Test(.enabled(if: FakeWallClock.library != nil, "needs libfaketime (apt-get install libfaketime)"))
    func twoDaysForwardFetchesWithin90Seconds() async throws {
        let rig = try await Rig(offset: "+0")
        #expect(try await rig.freshAir()["state"] as? String == "fresh")
        let requests = try await rig.airRequests()

        try rig.clock.set("+2d")
        let (seconds, headings) = try await Self.secondsToNextFetch(rig, after: requests, timeout: 90)
        #expect(seconds != nil, "no fetch within 90 s of the resume")
        #expect(!headings.contains(where: Self.isFreshAndDaysOld), "\(headings)")
        await rig.stop()
    }

    /// The request budget counts on the monotonic clock: two days forward, the requests just sent still count. With
    /// the hour's budget spent, the fetch the step calls for waits for it instead of going at once.
    @Test(.enabled(if: FakeWallClock.library != nil, "needs libfaketime (apt-get install libfaketime)"))
    func twoDaysForwardDoNotForgetTheRequestsJustSent() async throws {
        let rig = try await Rig(offset: "+0", configuration: "[data]\nrequests_per_hour = 4\n")
        let deadline = ContinuousClock.now + .seconds(30)
        var status = try await rig.ctl(["status"]).output
        while !status.contains("request budget spent") && ContinuousClock.now < deadline {
            _ = try await rig.ctl(["refresh"])
            status = try await rig.ctl(["status"]).output
        }
        #expect(status.contains("request budget spent"), "\(status)")
        let requests = try await rig.fixture.requests().count
        #expect(requests == 4, "the hour's budget")

        try rig.clock.set("+2d")
        let (seconds, _) = try await Self.secondsToNextFetch(rig, after: try await rig.airRequests(), timeout: 60)
        #expect(seconds == nil, "a request went out over the budget \(seconds ?? 0) s after the step")
        #expect(try await rig.fixture.requests().count == requests)
        #expect(try await rig.ctl(["status"]).output.contains("request budget spent"))
        await rig.stop()
    }

    /// A Pi without fake-hwclock boots at 1970. libfaketime's clock starts an hour past this machine's uptime there:
    /// on a real boot the wall clock is never behind the monotonic one, and libfaketime's timed waits misbehave
    /// when it is.
    @Test(.enabled(if: FakeWallClock.library != nil, "needs libfaketime (apt-get install libfaketime)"))
    func fromNineteenSeventyToNowNothingBreaks() async throws {
        let uptime = try String(contentsOfFile: "/proc/uptime", encoding: .utf8).split(separator: " ").first
            .flatMap { Double($0) } ?? 0
        let behind = Int(Date().timeIntervalSince1970 - uptime) - 3_600
        let rig = try await Rig(offset: "-\(behind)")
        let air = try await rig.freshAir()
        #expect(air["state"] as? String == "fresh", "\(air)")
        // An hour past the uptime: 1970 on a machine up for less than a year, a year of the 1970s or so otherwise.
        #expect((air["fetched"] as? String).flatMap { Int($0.prefix(4)) }.map { $0 < 2000 } == true, "\(air)")
        let requests = try await rig.airRequests()

        try rig.clock.set("+0")
        let (seconds, headings) = try await Self.secondsToNextFetch(rig, after: requests, timeout: 60)
        #expect(seconds != nil, "no fetch within a minute of the step from 1970")
        #expect(!headings.contains(where: Self.isFreshAndDaysOld), "\(headings)")
        let now = try await rig.freshAir()
        #expect((now["fetched"] as? String).flatMap { Int($0.prefix(4)) }.map { $0 >= 2026 } == true, "\(now)")
        #expect(try await rig.ctl(["status"]).status == 0)
        #expect(rig.daemon.process.isRunning)
        await rig.stop()
    }
}
