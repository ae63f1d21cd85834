import BreezeCore
import BreezeGPSD
import BreezeLocation
import BreezePlaces
import BreezeTestSupport
import Foundation
import Testing

/// The gpsd source and the location service against a real gpsd replaying logs the tests write.
@Suite(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake (scripts/bootstrap installs them)"))
struct GPSDSourceTests {
    static let adelboden = Coordinate(latitude: 46.4929, longitude: 7.5607)
    static let frutigen = Coordinate(latitude: 46.5877, longitude: 7.6480)

    @Test func aDriveFromOneTownToTheNextIsNamedAlongTheWay() async throws {
        // A long stay at the start, so that a client that connects late on a busy machine still sees it.
        var log = NMEALog()
        log.stay(at: Self.adelboden, count: 40)
        log.drive(from: Self.adelboden, to: Self.frutigen, count: 60)
        log.stay(at: Self.frutigen, count: 20)
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port)
        let gpsd = try await GPSFake(log: log.write(name: "drive"), port: port, interval: 0.03)
        let arrived = await harness.recorder.wait(timeout: 30) { _ in
            harness.positions.last?.place.name == "Frutigen"
        }
        await gpsd.stop()
        await harness.stop()

        #expect(arrived)
        let names = harness.positions.map(\.place.name)
        #expect(names.first == "Adelboden")
        #expect(names.last == "Frutigen")
        // 12.5 km at a 250 m threshold: at most about 50 namings, never one per epoch (100); the fixes between
        // carry the place named before.
        let namings = await harness.service.namings
        #expect(namings <= 52, "\(namings) namings")
        #expect(harness.positions.allSatisfy { $0.source == "gpsd" && $0.place.countryCode == "CH" })
        #expect(harness.permissions.contains(.requesting(.gpsd)))
        #expect(harness.permissions.contains(.authorized(.gpsd)))
        let first = try #require(harness.positions.first?.fix)
        #expect(first.mode == .threeD)
        #expect(abs((first.altitude ?? 0) - 545.4) < 0.1)
    }

    @Test func aStretchWithoutFixIsReportedAndRecovered() async throws {
        var log = NMEALog()
        log.stay(at: Self.adelboden, count: 40)
        log.lose(count: 40)
        log.stay(at: Self.frutigen, count: 30)
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port, fixTimeout: .seconds(1))
        let gpsd = try await GPSFake(log: log.write(name: "nofix"), port: port, interval: 0.05)
        let recovered = await harness.recorder.wait(timeout: 30) { _ in
            harness.positions.last?.place.name == "Frutigen"
        }
        await gpsd.stop()
        await harness.stop()

        #expect(recovered)
        let events = harness.recorder.all
        let lost = try #require(events.firstIndex(of: .fixLost(.gpsd)))
        #expect(events[lost...].contains(.noPosition))
        let permissions = harness.permissions
        let firstFix = try #require(permissions.firstIndex(of: .authorized(.gpsd)))
        let noFix = try #require(permissions[firstFix...].firstIndex { $0.reason?.code == .noFix })
        #expect(permissions[noFix].name == "unavailable")
        #expect(permissions[noFix].message == "gpsd has sent no fix for 1 s; the place of its last fix is shown meanwhile")
        #expect(permissions[noFix].hint?.contains("view of the sky") == true)
        #expect(permissions[noFix...].contains(.authorized(.gpsd)), "fixes came back: \(permissions)")
    }

    @Test func aReceiverClockDecadesOffStillGivesFreshFixes() async throws {
        var log = NMEALog()
        log.startTime = 946_684_800 - 19 * 365 * 86_400  // 1981: a GPS week rollover away and more
        log.stay(at: Self.frutigen, count: 30)
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port)
        let gpsd = try await GPSFake(log: log.write(name: "oldclock"), port: port, once: false, interval: 0.05)
        let named = await harness.recorder.wait(timeout: 40) { _ in !harness.positions.isEmpty }
        let replaying = gpsd.isRunning
        await gpsd.stop()
        await harness.stop()

        #expect(named, "gpsfake running: \(replaying); states seen: \(summary(harness.permissions.map(\.name)))")
        let fix = try #require(harness.positions.first?.fix)
        #expect(harness.positions.first?.place.name == "Frutigen")
        // What gpsd makes of the receiver's 1981: most runs here it sends no time at all (it withholds a date it
        // distrusts), once in seven it moved it one GPS week rollover (1,024 weeks) on, to 2000. Either way the fix
        // is taken, fresh by the time it came (below); a time that came is the receiver's, never the wall clock's.
        if let receiverTime = fix.receiverTime {
            let sent = log.startTime
            let rollover = 1_024.0 * 7 * 86_400
            #expect([sent, sent + rollover].contains { abs(receiverTime - $0) < 86_400 }, "receiver time \(receiverTime)")
        }
        #expect(abs(fix.receivedWallTime - Date().timeIntervalSince1970) < 60)
    }

    @Test func noGpsdIsAStateWithAHintNotACrash() async throws {
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port)
        let reported = await harness.recorder.wait(timeout: 10) { _ in
            harness.permissions.contains { $0.reason?.code == .notRunning }
        }
        await harness.stop()
        #expect(reported)
        let state = try #require(harness.permissions.first { $0.reason?.code == .notRunning })
        #expect(state.name == "unavailable")
        #expect(state.message == "gpsd is not running on 127.0.0.1:\(port)")
        #expect(state.hint == "start gpsd ('systemctl start gpsd') or set [gpsd] address=HOST:PORT in breezed.conf")
    }

    @Test func gpsdRestartedTenTimesIsFollowedEveryTimeWithoutLeaks() async throws {
        var log = NMEALog()
        log.stay(at: Self.adelboden, count: 40)
        let path = try log.write(name: "restarts")
        let port = GPSFake.freePort()
        // The daemon's own backoff (0.5 s doubling to 30 s, with jitter), not the tests' quick one.
        let harness = LocationServiceHarness(port: port, backoff: RetryBackoff())
        var descriptorCounts: [Int] = []
        var delays: [Double] = []
        for round in 1...10 {
            let gpsd = try await GPSFake(log: path, port: port, once: false, interval: 0.05)
            let authorizedBefore = harness.permissions.filter { $0 == .authorized(.gpsd) }.count
            // Timed from when gpsd listens: how long gpsfake takes to start it depends on the machine's load.
            #expect(await gpsd.waitUntilListening(), "round \(round): gpsd never listened")
            let started = ContinuousClock.now
            // Round 1 starts the source before any gpsd exists, so its backoff may have grown; later rounds are
            // restarts after a moment's loss.
            let back = await harness.recorder.wait(timeout: round == 1 ? 60 : 20) { _ in
                harness.permissions.filter { $0 == .authorized(.gpsd) }.count > authorizedBefore
            }
            #expect(back, "round \(round): no fix after gpsd came back")
            let delay = started.duration(to: .now)
            delays.append(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            descriptorCounts.append(socketsConnected(toPort: port))
            let lostBefore = harness.permissions.filter { $0.reason?.code == .lost || $0.reason?.code == .busy }.count
            await gpsd.stop()
            let noticed = await harness.recorder.wait(timeout: 10) { _ in
                harness.permissions.filter { $0.reason?.code == .lost || $0.reason?.code == .busy }.count > lostBefore
            }
            #expect(noticed, "round \(round): the loss was not reported")
        }
        await harness.stop()
        // Nothing leaks per reconnect: while connected there is exactly one socket to gpsd, round after round.
        print("sockets to gpsd while connected, rounds 1–10: \(descriptorCounts)")
        print("seconds from gpsd listening to the next fix, rounds 1–10: \(delays.map { ($0 * 10).rounded() / 10 })")
        // After a restart the backoff starts again from 0.5 s, so the next attempt comes within 8 s of gpsd
        // listening; a backoff not reset on success (steps of 16 s, 30 s) would show here.
        #expect(delays.dropFirst().allSatisfy { $0 < 15 }, "\(delays)")
        #expect(descriptorCounts.allSatisfy { $0 == 1 }, "sockets to gpsd while connected: \(descriptorCounts)")
    }
}

/// The privacy switch and a full gpsd, against a real gpsd.
@Suite(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake (scripts/bootstrap installs them)"))
struct GPSDSourceLimitsTests {
    @Test func switchingLocationOffIgnoresFixesAndForgetsThePosition() async throws {
        var log = NMEALog()
        log.stay(at: GPSDSourceTests.adelboden, count: 30)
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port)
        let gpsd = try await GPSFake(log: log.write(name: "privacy"), port: port, once: false, interval: 0.05)
        #expect(await harness.recorder.wait(timeout: 15) { _ in !harness.positions.isEmpty })

        await harness.service.setLocationEnabled(false)
        #expect(await harness.service.permission == .denied(.switchedOff))
        #expect(await harness.service.current == nil)
        // Positions sent before the switch may still be on their way to the recorder: counted from the switch's
        // own event on.
        #expect(await harness.recorder.wait(timeout: 10) { $0.contains(.permission(.denied(.switchedOff))) })
        func positionsSinceOff() -> Int {
            let events = harness.recorder.all
            guard let off = events.lastIndex(of: .permission(.denied(.switchedOff))) else { return -1 }
            return events[off...].filter { if case .position = $0 { true } else { false } }.count
        }
        // Fixes keep arriving from gpsd but are not used: two more reach the service, and no position follows.
        let fixesWhenOff = harness.source.fixCount
        #expect(await harness.source.recorder.wait(timeout: 15) { _ in harness.source.fixCount >= fixesWhenOff + 2 })
        #expect(positionsSinceOff() == 0)
        let positionsWhenOff = harness.positions.count

        await harness.service.setLocationEnabled(true)
        #expect(await harness.recorder.wait(timeout: 10) { _ in harness.positions.count > positionsWhenOff })
        #expect(harness.positions.last?.place.name == "Adelboden")
        await gpsd.stop()
        await harness.stop()
    }

    /// libgps's own gps_waiting/gps_read use select(), which aborts the process for a descriptor of 1024 or more;
    /// a daemon with many socket clients reaches such descriptors, so the source must not depend on select().
    @Test func aConnectionOnADescriptorAbove1024Works() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_max >= 2_048, "the hard limit on descriptors is too low for this test")
        if limit.rlim_cur < 2_048 {
            limit.rlim_cur = 2_048
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        var placeholders: [Int32] = []
        while placeholders.count < 1_100, let fd = Optional(dup(2)), fd >= 0 { placeholders.append(fd) }
        defer { placeholders.forEach { _ = close($0) } }
        try #require(placeholders.count == 1_100)

        var log = NMEALog()
        log.stay(at: GPSDSourceTests.frutigen, count: 30)
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port)
        let gpsd = try await GPSFake(log: log.write(name: "highfd"), port: port, once: false, interval: 0.05)
        let named = await harness.recorder.wait(timeout: 20) { _ in !harness.positions.isEmpty }
        if !named {
            // Seen once in a whole-group run and not since: say whether the replay reached a new watcher (gpsd or
            // gpsfake stalled) or only the source under test missed it.
            let control = await gpsd.reportsToANewWatcher(seconds: 3)
            let events = harness.source.recorder.all.filter { if case .fix = $0 { false } else { true } }
            Issue.record("""
                no position in 20 s; permissions seen: \(summary(harness.permissions, last: 10)); the source's \
                events other than fixes: \(summary(events, last: 10)); fixes: \(harness.source.fixCount); \
                gpsfake running: \(gpsd.isRunning); a new watcher read \(control) TPVs in 3 s
                """)
        }
        await gpsd.stop()
        await harness.stop()
        #expect(harness.positions.first?.place.name == "Frutigen")
    }

    /// Up to `count` TCP connections to `port` on 127.0.0.1, trying at most `attempts` times (a refused one waits
    /// 100 ms: gpsd may not listen yet). Blocks the calling thread.
    static func connections(toPort port: Int, count: Int, attempts: Int) -> [Int32] {
        var connected: [Int32] = []
        for _ in 0..<attempts where connected.count < count {
            if let fd = LoopbackTCP.connect(port: port) { connected.append(fd) } else { usleep(100_000) }
        }
        return connected
    }

    @Test func aGpsdWithNoFreeClientSlotsIsReportedAsBusy() async throws {
        var log = NMEALog()
        log.stay(at: GPSDSourceTests.adelboden, count: 30)
        let port = GPSFake.freePort()
        let gpsd = try await GPSFake(log: log.write(name: "full"), port: port, once: false, interval: 0.05)
        // Fill gpsd's client slots with plain connections that say nothing, from a thread of their own: a connect
        // waits out a full listen queue, which must not hold a thread of the cooperative pool.
        var fillers = await onDedicatedThread { Self.connections(toPort: port, count: 70, attempts: 200) }
        defer { fillers.forEach { _ = close($0) } }
        #expect(fillers.count == 70)

        let harness = LocationServiceHarness(port: port)
        let busy = await harness.recorder.wait(timeout: 15) { _ in
            harness.permissions.contains { $0.reason?.code == .busy }
        }
        #expect(busy, "permissions seen: \(summary(harness.permissions))")
        let state = harness.permissions.first { $0.reason?.code == .busy }
        #expect(state?.hint?.contains("too many clients") == true)

        // Free the slots: the source gets in on a later attempt.
        fillers.forEach { _ = close($0) }
        fillers.removeAll()
        let recovered = await harness.recorder.wait(timeout: 45) { _ in
            harness.permissions.contains(.authorized(.gpsd))
        }
        if !recovered {
            // A new watcher is the control: if the replay no longer reaches it either, gpsd or gpsfake stalled (seen
            // once in CI, with the whole group running) and the source is not what failed.
            let control = await gpsd.reportsToANewWatcher(seconds: 3)
            let events = harness.source.recorder.all.filter { if case .fix = $0 { false } else { true } }
            Issue.record("""
                not authorized 45 s after the slots were freed; permissions seen: \
                \(summary(harness.permissions, last: 10)); the source's events other than fixes: \
                \(summary(events, last: 10)); gpsfake running: \(gpsd.isRunning); a new watcher read \(control) \
                TPVs in 3 s
                """)
        }
        await gpsd.stop()
        await harness.stop()
    }
}

#if canImport(Glibc)
import Glibc
#endif
