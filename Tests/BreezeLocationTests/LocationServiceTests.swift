import BreezeTestSupport
import BreezeCore
import BreezeLocation
import BreezePlaces
import Foundation
import Synchronization
import Testing

/// A location service over scripted sources (`LocationServiceRig`), settled by waiting for its sources.
final class ServiceRig: Sendable {
    let rig: LocationServiceRig
    let sources: [ScriptedSource]

    init(
        _ sources: [ScriptedSource], movementThreshold: Double = 250,
        fixTimeout: Duration = .seconds(3_600), enabled: Bool = true
    ) {
        self.sources = sources
        rig = LocationServiceRig(
            sources: sources, movementThreshold: movementThreshold, fixTimeout: fixTimeout,
            enabled: enabled)
    }

    var service: LocationService { rig.service }
    var events: [LocationServiceEvent] { rig.events }

    /// Waits, up to 10 s (`TestTime`), until `count` events have arrived and every source's events have been handled.
    @discardableResult
    func settle(events count: Int) async -> [LocationServiceEvent] {
        let deadline = TestTime.deadline(after: 10)
        while ContinuousClock.now < deadline {
            if events.count >= count && sources.allSatisfy(\.isIdle) { break }
            await Task.yield()
            try? await Task.sleep(for: .milliseconds(2))
        }
        return events
    }

    func stop() async { await rig.stop() }

    static func positions(_ events: [LocationServiceEvent]) -> [String] {
        events.compactMap { if case .position(let update) = $0 { update.place.name } else { nil } }
    }
}

@Suite struct LocationServiceTests {
    static let gpsdLost = PermissionReason(code: .notRunning, message: "gpsd is not running")

    @Test func itStartsByAnnouncingThePermissionAndNoPosition() async {
        let rig = ServiceRig([ScriptedSource(.gpsd)])
        let events = await rig.settle(events: 2)
        await rig.stop()
        #expect(events.prefix(2) == [.permission(.notDetermined), .noPosition])
        #expect(await rig.service.current == nil)
    }

    @Test func switchedOffAtStartItAnnouncesTheSwitchAndTellsTheSources() async {
        let source = ScriptedSource(.geoclue, continuous: false)
        let rig = ServiceRig([source], enabled: false)
        let events = await rig.settle(events: 2)
        #expect(events.prefix(2) == [.permission(.denied(.switchedOff)), .noPosition])
        source.sendFix(46.94809, 7.44744)
        await rig.settle(events: 2)
        await rig.stop()
        #expect(ServiceRig.positions(rig.events) == [])
        #expect(source.switchCalls == [false])
    }

    @Test func aFixIsNamedAndAuthorizesItsSource() async {
        let gpsd = ScriptedSource(.gpsd)
        let rig = ServiceRig([gpsd])
        gpsd.send(.connecting)
        gpsd.send(.connected)
        gpsd.sendFix(46.94809, 7.44744)
        let events = await rig.settle(events: 5)
        await rig.stop()
        #expect(events.dropFirst(2).map(ServiceRig.describe) == [
            "permission requesting gpsd", "permission authorized gpsd", "position Bern from gpsd",
        ])
        #expect(ServiceRig.positions(events) == ["Bern"])
        #expect(await rig.service.current?.place.id == Place.bern.id)
        #expect(await rig.service.permission == .authorized(.gpsd))
    }

    @Test func aPositionIsNamedAgainOnlyPastTheMovementThreshold() async {
        let gpsd = ScriptedSource(.gpsd)
        let rig = ServiceRig([gpsd], movementThreshold: 1_000)
        gpsd.sendFix(46.94809, 7.44744)
        // About 890 m north: within the threshold. The place named for the first fix, with this fix (its time).
        gpsd.sendFix(46.95609, 7.44744)
        await rig.settle(events: 4)
        #expect(ServiceRig.positions(rig.events) == ["Bern", "Bern"])
        guard case .position(let kept)? = rig.events.last else { Issue.record("\(rig.events)"); return }
        #expect(kept.fix?.coordinate.latitude == 46.95609)
        #expect(await rig.service.namings == 1, "not named again within the threshold")
        #expect(abs(kept.distance - kept.place.coordinate.distance(to: Coordinate(latitude: 46.95609, longitude: 7.44744))) < 1)
        // About 1,110 m north of the first: past it, though only 220 m from the last fix.
        gpsd.sendFix(46.95809, 7.44744)
        await rig.settle(events: 5)
        // Zurich, far away.
        gpsd.sendFix(47.36667, 8.55)
        await rig.settle(events: 6)
        await rig.stop()
        #expect(ServiceRig.positions(rig.events) == ["Bern", "Bern", "Bern", "Zürich"])
    }

    @Test func aLowerRankedSourceWaitsWhileAHigherOneHasFixes() async {
        let gpsd = ScriptedSource(.gpsd)
        let geoclue = ScriptedSource(.geoclue, continuous: false)
        let rig = ServiceRig([gpsd, geoclue], movementThreshold: 10)
        gpsd.sendFix(46.94809, 7.44744)
        await rig.settle(events: 4)
        geoclue.sendFix(47.36667, 8.55)
        await rig.settle(events: 4)
        #expect(ServiceRig.positions(rig.events) == ["Bern"])
        #expect(await rig.service.permission == .authorized(.gpsd))
        // gpsd goes: GeoClue's last fix takes over at once, without a moment of no position in between.
        gpsd.send(.lost(Self.gpsdLost))
        let events = await rig.settle(events: 8)
        await rig.stop()
        #expect(events.dropFirst(4).map(ServiceRig.describe) == [
            "permission unavailable not-running", "handover gpsd to geoclue: gpsd is not running",
            "permission authorized geoclue", "position Zürich from geoclue",
        ])
        #expect(ServiceRig.positions(events) == ["Bern", "Zürich"])
    }

    @Test func aHigherRankedSourceTakesOverAgainAtOnce() async {
        let gpsd = ScriptedSource(.gpsd)
        let geoclue = ScriptedSource(.geoclue, continuous: false)
        let rig = ServiceRig([gpsd, geoclue], movementThreshold: 10)
        geoclue.sendFix(47.36667, 8.55)
        await rig.settle(events: 4)
        #expect(await rig.service.permission == .authorized(.geoclue))
        gpsd.sendFix(46.94809, 7.44744)
        let events = await rig.settle(events: 7)
        await rig.stop()
        #expect(events.count == 7)
        #expect(events.dropFirst(4).first == .handover(from: .geoclue, to: .gpsd, reason: "gpsd has fixes again"))
        #expect(events.dropFirst(5).first == .permission(.authorized(.gpsd)))
        #expect(ServiceRig.positions(events) == ["Zürich", "Bern"])
    }

    @Test func theOnlySourceLostFallsBackToTheCity() async {
        let gpsd = ScriptedSource(.gpsd)
        let rig = ServiceRig([gpsd])
        gpsd.sendFix(46.94809, 7.44744)
        await rig.settle(events: 4)
        gpsd.send(.lost(Self.gpsdLost))
        let events = await rig.settle(events: 7)
        await rig.stop()
        #expect(Array(events.dropFirst(4)) == [
            .permission(.unavailable(Self.gpsdLost)), .fixLost(.gpsd), .noPosition,
        ])
        #expect(await rig.service.current?.fix == nil)
    }

    @Test func deniedAndRestrictedAreAnnouncedWithTheirReason() async {
        let geoclue = ScriptedSource(.geoclue, continuous: false)
        let rig = ServiceRig([geoclue])
        let denied = PermissionReason(code: .accessDenied, message: "GeoClue refused breezed")
        let policy = PermissionReason(code: .policy, message: "not in the agent whitelist")
        geoclue.send(.denied(denied))
        await rig.settle(events: 3)
        geoclue.send(.restricted(policy))
        let events = await rig.settle(events: 4)
        await rig.stop()
        #expect(Array(events.dropFirst(2)) == [.permission(.denied(denied)), .permission(.restricted(policy))])
    }

    @Test func switchingOffDropsTheLivePositionAndFixesAreIgnoredUntilOn() async {
        let gpsd = ScriptedSource(.gpsd)
        let rig = ServiceRig([gpsd])
        gpsd.sendFix(46.94809, 7.44744)
        await rig.settle(events: 4)
        await rig.service.setLocationEnabled(false)
        await rig.settle(events: 6)
        #expect(Array(rig.events.dropFirst(4).prefix(2)) == [.permission(.denied(.switchedOff)), .fixLost(.gpsd)])
        gpsd.sendFix(47.36667, 8.55)
        await rig.settle(events: 7)
        #expect(ServiceRig.positions(rig.events) == ["Bern"])
        #expect(await rig.service.permission == .denied(.switchedOff))
        #expect(gpsd.switchCalls == [false])
        await rig.service.setLocationEnabled(true)
        #expect(await rig.service.permission == .notDetermined)
        gpsd.sendFix(47.36667, 8.55)
        await rig.settle(events: 10)
        await rig.stop()
        #expect(ServiceRig.positions(rig.events) == ["Bern", "Zürich"])
        #expect(gpsd.switchCalls == [false, true])
    }

    @Test func aFixFromBeforeTheSwitchWentOffIsNeverUsedAfter() async {
        let gpsd = ScriptedSource(.gpsd)
        let geoclue = ScriptedSource(.geoclue, continuous: false)
        let rig = ServiceRig([gpsd, geoclue], movementThreshold: 10)
        gpsd.sendFix(46.94809, 7.44744)
        await rig.settle(events: 4)
        // GeoClue's fix waits behind gpsd's.
        geoclue.sendFix(47.36667, 8.55)
        await rig.settle(events: 4)
        await rig.service.setLocationEnabled(false)
        await rig.service.setLocationEnabled(true)
        gpsd.sendFix(46.94809, 7.44744)
        await rig.settle(events: 10)
        gpsd.send(.lost(Self.gpsdLost))
        let events = await rig.settle(events: 13)
        await rig.stop()
        #expect(events.dropFirst(10).map(ServiceRig.describe) == [
            "permission unavailable not-running", "fix lost gpsd", "no position",
        ])
        #expect(ServiceRig.positions(events) == ["Bern", "Bern"])
    }

    @Test func aFixReceivedWhileOffIsNeverUsed() async {
        let gpsd = ScriptedSource(.gpsd)
        let geoclue = ScriptedSource(.geoclue, continuous: false)
        let rig = ServiceRig([gpsd, geoclue], movementThreshold: 10, enabled: false)
        await rig.settle(events: 2)
        geoclue.sendFix(47.36667, 8.55)
        await rig.settle(events: 2)
        await rig.service.setLocationEnabled(true)
        gpsd.sendFix(46.94809, 7.44744)
        await rig.settle(events: 5)
        gpsd.send(.lost(Self.gpsdLost))
        let events = await rig.settle(events: 8)
        await rig.stop()
        #expect(events.map(ServiceRig.describe) == [
            "permission denied switched-off", "no position", "permission not_determined",
            "permission authorized gpsd", "position Bern from gpsd",
            "permission unavailable not-running", "fix lost gpsd", "no position",
        ])
    }

    @Test func aContinuousSourceThatFallsSilentLosesItsFix() async {
        let gpsd = ScriptedSource(.gpsd)
        let rig = ServiceRig([gpsd], fixTimeout: .milliseconds(100))
        gpsd.sendFix(46.94809, 7.44744)
        let events = await rig.settle(events: 7)
        await rig.stop()
        #expect(events.dropFirst(2).map(ServiceRig.describe) == [
            "permission authorized gpsd", "position Bern from gpsd", "permission unavailable no-fix", "fix lost gpsd",
            "no position",
        ])
        guard case .permission(.unavailable(let reason))? = events.dropFirst(4).first else { return }
        #expect(reason.message == "gpsd has sent no fix for 0 s; the place of its last fix is shown meanwhile")
    }

    @Test func aRejectedReportIsANoticeNotAnEvent() async {
        let gpsd = ScriptedSource(.gpsd)
        let rig = ServiceRig([gpsd])
        gpsd.send(.rejected("time went backwards"))
        gpsd.send(.noFix)
        var notices = rig.service.notices.makeAsyncIterator()
        let notice = await notices.next()
        await rig.settle(events: 2)
        await rig.stop()
        #expect(notice == LocationNotice(source: .gpsd, message: "time went backwards"))
        #expect(rig.events == [.permission(.notDetermined), .noPosition])
    }

    @Test func silenceBeyondTheFixTimeoutCountsAsNoFix() async {
        let gpsd = ScriptedSource(.gpsd)
        let rig = ServiceRig([gpsd], fixTimeout: .milliseconds(100))
        gpsd.send(.connected)
        let events = await rig.settle(events: 4)
        await rig.stop()
        #expect(events.dropFirst(2).first == .permission(.requesting(.gpsd)))
        guard case .permission(.unavailable(let reason))? = events.dropFirst(3).first else {
            Issue.record("no timeout in \(events)")
            return
        }
        #expect(reason.code == .noFix)
        #expect(reason.message == "gpsd has no location yet after 0 s")
    }
}

extension ServiceRig {
    /// An event in a few words, for comparing sequences.
    static func describe(_ event: LocationServiceEvent) -> String {
        switch event {
        case .permission(let state):
            var text = "permission \(state.name)"
            if let source = state.source { text += " \(source.rawValue)" }
            if let reason = state.reason, state.source == nil { text += " \(reason.code.rawValue)" }
            return text
        case .position(let update): return "position \(update.place.name) from \(update.source)"
        case .fixLost(let kind): return "fix lost \(kind.rawValue)"
        case .noPosition: return "no position"
        case .handover(let from, let to, let reason):
            return "handover \(from?.rawValue ?? "none") to \(to.rawValue): \(reason)"
        }
    }
}
