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
        var log = NMEALog()
        log.stay(at: Self.adelboden, count: 20)
        log.drive(from: Self.adelboden, to: Self.frutigen, count: 60)
        log.stay(at: Self.frutigen, count: 20)
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port)
        let gpsd = try GPSFake(log: log.write(name: "drive"), port: port)
        let arrived = await harness.recorder.wait(timeout: 30) { _ in
            harness.positions.last?.place.name == "Frutigen"
        }
        gpsd.stop()
        await harness.stop()

        #expect(arrived)
        let names = harness.positions.map(\.place.name)
        #expect(names.first == "Adelboden")
        #expect(names.last == "Frutigen")
        // 12.5 km at a 250 m threshold: at most about 50 namings, never one per epoch (100).
        #expect(harness.positions.count <= 52, "\(harness.positions.count) positions")
        #expect(harness.positions.allSatisfy { $0.source == "gpsd" && $0.place.countryCode == "CH" })
        #expect(harness.permissions.contains(.requesting(.gpsd)))
        #expect(harness.permissions.contains(.authorized(.gpsd)))
        let first = try #require(harness.positions.first?.fix)
        #expect(first.mode == .threeD)
        #expect(abs((first.altitude ?? 0) - 545.4) < 0.1)
    }

    @Test func aStretchWithoutFixIsReportedAndRecovered() async throws {
        var log = NMEALog()
        log.stay(at: Self.adelboden, count: 20)
        log.lose(count: 40)
        log.stay(at: Self.frutigen, count: 30)
        let port = GPSFake.freePort()
        let fallback = Place(
            id: 1, name: "Bern", admin1: "Bern", country: "Switzerland", countryCode: "CH", population: 121_631,
            coordinate: Coordinate(latitude: 46.948, longitude: 7.447))
        let harness = LocationServiceHarness(port: port, fixTimeout: .seconds(1), fallback: fallback)
        let gpsd = try GPSFake(log: log.write(name: "nofix"), port: port, interval: 0.05)
        let recovered = await harness.recorder.wait(timeout: 30) { _ in
            harness.positions.last?.place.name == "Frutigen"
        }
        gpsd.stop()
        await harness.stop()

        #expect(recovered)
        let events = harness.recorder.all
        let lost = try #require(events.firstIndex(of: .fixLost(.gpsd)))
        #expect(events[lost...].contains(.fallback(fallback)))
        let permissions = harness.permissions
        let firstFix = try #require(permissions.firstIndex(of: .authorized(.gpsd)))
        let noFix = try #require(permissions[firstFix...].firstIndex { $0.reason?.code == .noFix })
        #expect(permissions[noFix].name == "unavailable")
        #expect(permissions[noFix].message == "gpsd lost its fix 1 s ago; the selected city is used meanwhile")
        #expect(permissions[noFix].hint?.contains("view of the sky") == true)
        #expect(permissions[noFix...].contains(.authorized(.gpsd)), "fixes came back: \(permissions)")
    }

    @Test func aReceiverClockDecadesOffStillGivesFreshFixes() async throws {
        var log = NMEALog()
        log.startTime = 946_684_800 - 19 * 365 * 86_400  // 1981: a GPS week rollover away and more
        log.stay(at: Self.frutigen, count: 30)
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port)
        let gpsd = try GPSFake(log: log.write(name: "oldclock"), port: port)
        let named = await harness.recorder.wait(timeout: 20) { _ in !harness.positions.isEmpty }
        gpsd.stop()
        await harness.stop()

        #expect(named)
        let fix = try #require(harness.positions.first?.fix)
        #expect(harness.positions.first?.place.name == "Frutigen")
        #expect((fix.receiverTime ?? 0) < 400_000_000)
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
        #expect(state.hint == "start gpsd ('systemctl start gpsd') or set gpsd.address in breezed.conf")
    }

    @Test func gpsdRestartedTenTimesIsFollowedEveryTimeWithoutLeaks() async throws {
        var log = NMEALog()
        log.stay(at: Self.adelboden, count: 40)
        let path = try log.write(name: "restarts")
        let port = GPSFake.freePort()
        let harness = LocationServiceHarness(port: port)
        var descriptorCounts: [Int] = []
        for round in 1...10 {
            let gpsd = try GPSFake(log: path, port: port, once: false, interval: 0.05)
            let authorizedBefore = harness.permissions.filter { $0 == .authorized(.gpsd) }.count
            let back = await harness.recorder.wait(timeout: 15) { _ in
                harness.permissions.filter { $0 == .authorized(.gpsd) }.count > authorizedBefore
            }
            #expect(back, "round \(round): no fix after gpsd came back")
            descriptorCounts.append(openDescriptorCount())
            let lostBefore = harness.permissions.filter { $0.reason?.code == .lost || $0.reason?.code == .busy }.count
            gpsd.stop()
            let noticed = await harness.recorder.wait(timeout: 10) { _ in
                harness.permissions.filter { $0.reason?.code == .lost || $0.reason?.code == .busy }.count > lostBefore
            }
            #expect(noticed, "round \(round): the loss was not reported")
        }
        await harness.stop()
        // Nothing leaks per reconnect: the descriptors open while connected do not grow from round to round.
        print("open descriptors while connected, rounds 1–10: \(descriptorCounts)")
        #expect(descriptorCounts.last! <= descriptorCounts[1], "descriptors while connected: \(descriptorCounts)")
    }
}
