import BreezeCore
import BreezeGPSD
import BreezeLocation
import BreezePlaces
import BreezeTestSupport
import Foundation
import Testing

/// The location service under a flood of fixes and across the privacy switch, on scripted sources (no I/O).
@Suite struct LocationServiceLimitsTests {
    static let adelboden = (46.4929, 7.5607)
    static let frutigen = (46.5877, 7.648)
    static let sydney = (-33.8688, 151.2093)
    static let london = (51.5072, -0.1276)

    /// Waits, up to a deadline, until the service's current place has this name.
    func waitUntil(_ service: LocationService, isAt name: String) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if await service.current?.place.name == name { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Every event still queued once the service has stopped.
    func queued(_ service: LocationService, run: Task<Void, Never>) async -> [LocationServiceEvent] {
        run.cancel()
        await run.value
        var events: [LocationServiceEvent] = []
        for await event in service.events { events.append(event) }
        return events
    }

    @Test func aFloodOfFarApartFixesNobodyReadsQueuesABoundedNumberOfEvents() async throws {
        let source = ScriptedSource(.gpsd)
        let service = LocationService(
            sources: [source], geocoder: ReverseGeocoder(index: LocationServiceRig.index))
        let run = Task { await service.run() }
        let before = ProcessMemory.residentBytes()
        source.send(.connecting)
        source.send(.connected)
        let count = 20_000
        for index in 0..<count {
            let (latitude, longitude) = index.isMultiple(of: 2) ? Self.sydney : Self.london
            source.sendFix(latitude, longitude)
        }
        source.sendFix(Self.frutigen.0, Self.frutigen.1)
        #expect(await waitUntil(service, isAt: "Frutigen"))
        let grown = ProcessMemory.residentBytes() - before
        let events = await queued(service, run: run)

        #expect(events.count <= 64, "\(events.count) events queued for \(count) fixes")
        // The bound is the queue's length above: resident memory is the whole test process's, shared with the
        // suites running beside this one, so it is reported, not asserted.
        print("location flood: \(count) fixes, \(events.count) events queued, RSS +\(grown >> 10) KiB")
        // The state changes are all there; only positions were left out while the reader was behind.
        #expect(events.contains(.permission(.authorized(.gpsd))))
        #expect(await service.permission == .authorized(.gpsd))
    }

    @Test func switchingOffForgetsEveryLivePosition() async throws {
        let gpsd = ScriptedSource(.gpsd)
        let geoclue = ScriptedSource(.geoclue, continuous: false)
        let rig = LocationServiceRig(sources: [gpsd, geoclue])
        let service = rig.service
        let recorder = rig.recorder
        func named(_ name: String, after start: Int) async -> Bool {
            await recorder.wait(timeout: 10) { events in
                events[start...].contains { if case .position(let update) = $0 { update.place.name == name } else { false } }
            }
        }
        geoclue.send(.connected)
        geoclue.sendFix(Self.london.0, Self.london.1)
        #expect(await named("London", after: 0))
        gpsd.send(.connected)
        gpsd.sendFix(Self.adelboden.0, Self.adelboden.1)
        #expect(await named("Adelboden", after: 0))

        await service.setLocationEnabled(false)
        #expect(await service.current == nil)
        #expect(await service.permission == .denied(.switchedOff))
        #expect(await recorder.wait(timeout: 10) { $0.last == .noPosition })
        geoclue.sendFix(Self.sydney.0, Self.sydney.1)  // while off: neither named nor kept
        #expect(await geoclue.waitUntilHandled())

        await service.setLocationEnabled(true)
        let switchedOn = recorder.all.count
        gpsd.sendFix(Self.frutigen.0, Self.frutigen.1)
        #expect(await named("Frutigen", after: switchedOn))
        // gpsd goes: GeoClue has given no position since the switch came back on, so the service has no position.
        let lost = recorder.all.count
        gpsd.send(.lost(PermissionReason(code: .lost, message: "gpsd went away", hint: nil)))
        #expect(await recorder.wait(timeout: 10) { $0[lost...].contains(.noPosition) }, "\(recorder.all[lost...])")
        #expect(await service.current == nil)
        #expect(!recorder.all[switchedOn...].contains { event in
            if case .position(let update) = event { ["London", "Sydney"].contains(update.place.name) } else { false }
        }, "\(recorder.all[switchedOn...])")
        await rig.stop()
    }
}
