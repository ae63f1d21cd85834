import BreezeCore
import BreezeGPSD
import BreezeGeoClue
import BreezeLocation
import BreezePlaces
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every GeoClue answer a user can meet, through the location service, against the real GeoClue: the exact state,
/// reason and hint a person would see.
@Suite(.serialized, .enabled(if: GeoClueRig.isAvailable, "needs root, geoclue-2.0, dbus and unshare"))
struct GeoClueScenarioTests {
    static let index = try! PlacesIndex(path: PlacesIndexLocation.sourceTreeIndex)
    static let adelboden = (46.4929, 7.5607)
    static let frutigen = (46.5877, 7.6480)

    /// A location service over the given sources, recorded.
    final class Service: Sendable {
        let service: LocationService
        let task: Task<Void, Never>
        let recorder = EventRecorder<LocationServiceEvent>()

        init(_ sources: [any LocationSource], fixTimeout: Duration = .seconds(4)) {
            let service = LocationService(
                sources: sources, geocoder: ReverseGeocoder(index: GeoClueScenarioTests.index),
                fixTimeout: fixTimeout)
            self.service = service
            let recorder = recorder
            task = Task {
                async let listening: Void = { for await event in service.events { recorder.append(event) } }()
                await service.run()
                await listening
            }
        }

        var permissions: [LocationPermission] {
            recorder.all.compactMap { if case .permission(let state) = $0 { state } else { nil } }
        }

        var positions: [LocationUpdate] {
            recorder.all.compactMap { if case .position(let update) = $0 { update } else { nil } }
        }

        var handovers: [(LocationSourceKind?, LocationSourceKind, String)] {
            recorder.all.compactMap { if case .handover(let from, let to, let reason) = $0 { (from, to, reason) } else { nil } }
        }

        func waitForPermission(timeout: Double = 20, _ condition: @escaping (LocationPermission) -> Bool) async -> Bool {
            await recorder.wait(timeout: timeout) { _ in self.permissions.last.map(condition) ?? false }
        }

        /// True when the service has no position (the daemon's stand-in is shown then).
        func hasNoPosition() async -> Bool {
            await service.current == nil
        }

        /// The events after the first one that `first` accepts (none if none does).
        func events(after first: (LocationServiceEvent) -> Bool) -> ArraySlice<LocationServiceEvent> {
            let all = recorder.all
            guard let start = all.firstIndex(where: first) else { return [] }
            return all[(start + 1)...]
        }

        func stop() async {
            task.cancel()
            await task.value
        }
    }

    static func geoclue(_ rig: GeoClueRig, agent: Bool = true) -> GeoClueSource {
        var configuration = GeoClueSource.Configuration()
        configuration.busAddress = rig.busAddress
        configuration.agent = agent
        configuration.callTimeout = 2
        configuration.backoff = RetryBackoff(initial: 0.3, maximum: 1, multiplier: 2, jitter: 0)
        configuration.refusedRetry = 60
        return GeoClueSource(configuration: configuration)
    }

    @Test func authorizedAndMovingNamesEachTown() async throws {
        let rig = try await GeoClueRig()
        rig.fix(Self.adelboden.0, Self.adelboden.1)
        let service = Service([Self.geoclue(rig)])
        #expect(await service.recorder.wait(timeout: 20) { _ in service.positions.last?.place.name == "Adelboden" })
        rig.fix(Self.frutigen.0, Self.frutigen.1)
        #expect(await service.recorder.wait(timeout: 20) { _ in service.positions.last?.place.name == "Frutigen" })
        #expect(service.permissions.contains(.requesting(.geoclue)))
        #expect(service.permissions.last == .authorized(.geoclue))
        #expect(service.positions.allSatisfy { $0.source == "geoclue" })
        await service.stop()
        await rig.stop()
    }

    @Test func anAppSectionThatDisallowsBreezedIsDenied() async throws {
        let rig = try await GeoClueRig(appSection: "allowed=false\nsystem=false\nusers=")
        rig.fix(Self.adelboden.0, Self.adelboden.1)
        let service = Service([Self.geoclue(rig)])
        #expect(await service.waitForPermission { if case .denied = $0 { true } else { false } }, "\(summary(service.permissions))")
        let reason = try #require(service.permissions.last?.reason)
        #expect(reason.code == .accessDenied)
        #expect(reason.message.hasPrefix("GeoClue refused breezed: "), "\(reason.message)")
        #expect(reason.hint == "allow it in /etc/geoclue/geoclue.conf: a [breezed] section with allowed=true, "
            + "system=true and users= empty (or listing breezed's user), then restart geoclue")
        // Refused before any fix: the city used from the start is still the one in use.
        let current = await service.service.current
        #expect(await service.hasNoPosition(), "\(String(describing: current))")
        #expect(service.positions.isEmpty)
        await service.stop()
        await rig.stop()
    }

    @Test func anAgentNotOnTheWhitelistIsRestrictedWithTheFix() async throws {
        let rig = try await GeoClueRig(whitelist: "gnome-shell")
        let service = Service([Self.geoclue(rig)])
        #expect(await service.waitForPermission { if case .restricted = $0 { true } else { false } }, "\(summary(service.permissions))")
        let reason = try #require(service.permissions.last?.reason)
        #expect(reason.code == .policy)
        #expect(reason.message.hasPrefix("GeoClue does not let breezed act as its location agent: "))
        #expect(reason.message.contains("not allowed to act as agent"), "\(reason.message)")
        #expect(reason.hint == "add breezed to the agent whitelist in /etc/geoclue/geoclue.conf ([agent] whitelist=…;breezed), "
            + "then restart geoclue; or set [geoclue] agent=false in breezed.conf")
        await service.stop()
        await rig.stop()
    }

    @Test func switchingLocationOffIsDeniedThroughTheAgent() async throws {
        let rig = try await GeoClueRig()
        rig.fix(Self.adelboden.0, Self.adelboden.1)
        let service = Service([Self.geoclue(rig)])
        #expect(await service.waitForPermission { $0 == .authorized(.geoclue) })
        await service.service.setLocationEnabled(false)
        #expect(await service.waitForPermission(timeout: 5) { $0 == .denied(.switchedOff) })
        #expect(service.permissions.last?.hint == "run 'breezectl location on' to use this machine's position again")
        // Switched off from a live position: no position is announced after the switch, and none is kept.
        let off: (LocationServiceEvent) -> Bool = { $0 == .permission(.denied(.switchedOff)) }
        #expect(service.events(after: off).contains(.noPosition), "\(summary(service.events(after: off)))")
        #expect(await service.hasNoPosition())
        rig.fix(Self.frutigen.0, Self.frutigen.1)
        await service.service.setLocationEnabled(true)
        #expect(await service.recorder.wait(timeout: 20) { _ in service.positions.last?.place.name == "Frutigen" })
        // Between "off" and the next state announced, no position was used.
        let whileOff = service.events(after: off).prefix { if case .permission = $0 { false } else { true } }
        #expect(!whileOff.contains { if case .position = $0 { true } else { false } }, "a position was used while off")
        await service.stop()
        await rig.stop()
    }

    @Test func noFixIsUnavailableAndTheFallbackCityIsUsed() async throws {
        let rig = try await GeoClueRig()
        rig.noFix()
        let service = Service([Self.geoclue(rig)], fixTimeout: .seconds(3))
        #expect(await service.waitForPermission { if case .unavailable = $0 { true } else { false } }, "\(summary(service.permissions))")
        let reason = try #require(service.permissions.last?.reason)
        #expect(reason.code == .noFix)
        #expect(reason.message == "GeoClue has no location yet after 3 s")
        #expect(reason.hint == "GeoClue has no source with a position: check its Wi-Fi or NMEA sources in /etc/geoclue/geoclue.conf")
        let current = await service.service.current
        #expect(await service.hasNoPosition(), "\(String(describing: current))")
        // A fix later is used at once.
        rig.fix(Self.adelboden.0, Self.adelboden.1)
        #expect(await service.recorder.wait(timeout: 20) { _ in service.positions.last?.place.name == "Adelboden" })
        await service.stop()
        await rig.stop()
    }

    @Test func geoClueKilledAndRestartedIsFollowed() async throws {
        let rig = try await GeoClueRig()
        rig.fix(Self.adelboden.0, Self.adelboden.1)
        let service = Service([Self.geoclue(rig)])
        #expect(await service.waitForPermission { $0 == .authorized(.geoclue) })
        let killed = SystemServiceClock().wallTime
        await rig.killGeoClue()
        #expect(await service.waitForPermission { $0.reason?.code == .lost || $0.reason?.code == .notRunning }, "\(summary(service.permissions))")
        let lost = try #require(service.permissions.last?.reason)
        #expect(lost.message == "GeoClue exited; breezed reconnects when it is back" || lost.message == "GeoClue is not running",
                "\(lost.message)")
        // With the time of the next try: after the loss, and within the backoff's cap (1 s) of it.
        let retryAt = try #require(lost.retryAt)
        let now = SystemServiceClock().wallTime
        #expect(retryAt >= killed && retryAt <= now + 1.5, "\(retryAt - killed) s after the kill, \(retryAt - now) s from now")
        try await rig.startGeoClue()
        rig.fix(Self.frutigen.0, Self.frutigen.1)
        #expect(await service.waitForPermission(timeout: 30) { $0 == .authorized(.geoclue) }, "\(summary(service.permissions))")
        #expect(await service.recorder.wait(timeout: 20) { _ in service.positions.last?.place.name == "Frutigen" })
        await service.stop()
        await rig.stop()
    }

    @Test func aStoppedGeoClueNeverBlocksTheService() async throws {
        let rig = try await GeoClueRig()
        rig.signalGeoClue(SIGSTOP)
        let service = Service([Self.geoclue(rig)])
        #expect(await service.waitForPermission(timeout: 5) { $0 == .requesting(.geoclue) })
        // Each call times out after 2 s: unavailable, with the call named.
        #expect(await service.waitForPermission(timeout: 10) { $0.reason?.code == .notRunning }, "\(summary(service.permissions))")
        #expect(service.permissions.last?.reason?.message.hasPrefix("GeoClue did not answer while registering as GeoClue's agent") == true,
                "\(String(describing: service.permissions.last))")
        // The service still answers.
        let started = ContinuousClock.now
        _ = await service.service.current
        _ = await service.service.permission
        #expect(ContinuousClock.now - started < .seconds(1))
        rig.signalGeoClue(SIGCONT)
        await service.stop()
        await rig.stop()
    }

    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
    func gpsdWinsGeoClueTakesOverAndGpsdTakesBack() async throws {
        let rig = try await GeoClueRig()
        rig.fix(Self.frutigen.0, Self.frutigen.1)
        var log = NMEALog()
        log.stay(at: Coordinate(latitude: Self.adelboden.0, longitude: Self.adelboden.1), count: 400)
        let path = try log.write(name: "arbitration")
        let port = GPSFake.freePort()
        var gpsd: GPSFake? = try await GPSFake(log: path, port: port, once: false, interval: 0.05)
        let gpsdSource = TappedSource(
            GPSDSource(address: GPSDAddress(host: "127.0.0.1", port: port), backoff: RetryBackoff(initial: 0.2, maximum: 1)))
        let geoclueSource = TappedSource(Self.geoclue(rig))
        let service = Service([gpsdSource, geoclueSource], fixTimeout: .seconds(3))
        #expect(await service.recorder.wait(timeout: 30) { _ in
            service.permissions.last == .authorized(.gpsd) && service.positions.last?.place.name == "Adelboden"
        }, "\(summary(service.permissions))")
        // Both run; gpsd wins: GeoClue's Frutigen, sent to the service, is not used while gpsd has fixes.
        let gpsdFixes = gpsdSource.fixCount
        #expect(await geoclueSource.recorder.wait(timeout: 20) { _ in geoclueSource.fixCount > 0 }, "GeoClue sent a fix")
        #expect(await gpsdSource.recorder.wait(timeout: 20) { _ in gpsdSource.fixCount > gpsdFixes + 1 })
        #expect(service.positions.last?.place.name == "Adelboden")
        #expect(service.permissions.last == .authorized(.gpsd))

        await gpsd?.stop()
        gpsd = nil
        #expect(await service.recorder.wait(timeout: 20) { _ in
            service.permissions.last == .authorized(.geoclue) && service.positions.last?.place.name == "Frutigen"
        }, "\(summary(service.permissions))")
        let takeover = try #require(service.handovers.last)
        #expect(takeover.0 == .gpsd && takeover.1 == .geoclue)
        #expect(takeover.2.contains("gpsd"), "\(takeover.2)")

        gpsd = try await GPSFake(log: path, port: port, once: false, interval: 0.05)
        #expect(await service.recorder.wait(timeout: 30) { _ in
            service.permissions.last == .authorized(.gpsd) && service.positions.last?.place.name == "Adelboden"
        }, "\(summary(service.permissions))")
        let takeback = try #require(service.handovers.last)
        #expect(takeback.0 == .geoclue && takeback.1 == .gpsd)
        #expect(takeback.2 == "gpsd has fixes again")
        await gpsd?.stop()
        await service.stop()
        await rig.stop()
    }
}
