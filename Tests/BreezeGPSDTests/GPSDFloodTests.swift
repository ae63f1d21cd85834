import BreezeCore
import BreezeGPSD
import BreezeLocation
import BreezePlaces
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

/// A gpsd that sends far more than any receiver: the source and the service keep up with bounded memory.
@Suite(.serialized) struct GPSDFloodTests {
    /// TPVs 0.1 s apart from `first`, jumping between Sydney and London each time, so that each is a new position.
    static func flood(_ range: Range<Int>) -> [String] {
        range.map { tenths in
            let time = String(
                format: "2024-05-01T%02d:%02d:%02d.%dZ", tenths / 36_000, tenths / 600 % 60, tenths / 10 % 60, tenths % 10)
            return tenths.isMultiple(of: 2)
                ? FakeGPSD.tpv(-33.8688, 151.2093, time: time) : FakeGPSD.tpv(51.5072, -0.1276, time: time)
        }
    }

    /// Counts what the service says without keeping it, so that the memory measured is the source's and the service's.
    final class Tally: Sendable {
        private let state = Mutex((positions: 0, last: ""))
        func add(_ event: LocationServiceEvent) {
            if case .position(let update) = event { state.withLock { $0 = ($0.positions + 1, update.place.name) } }
        }
        var positions: Int { state.withLock { $0.positions } }
        var last: String { state.withLock { $0.last } }
    }

    @Test func aFloodOfFarApartFixesKeepsMemoryBounded() async throws {
        let gpsd = try FakeGPSD()
        defer { gpsd.stop() }
        let source = GPSDSource(address: GPSDAddress(host: "127.0.0.1", port: gpsd.port))
        let service = LocationService(sources: [source], geocoder: ReverseGeocoder(index: LocationServiceRig.index))
        let tally = Tally()
        let running = Task {
            async let listening: Void = { for await event in service.events { tally.add(event) } }()
            await service.run()
            await listening
        }
        try #require(await gpsd.waitForClient(timeout: 10))
        let count = 60_000
        let before = ProcessMemory.residentBytes()
        let started = ContinuousClock.now
        // Sent from a thread of its own: each send blocks until the source has read enough, and a thread of the
        // cooperative pool blocked for the whole flood would stall every test running beside this one.
        let sent = await onDedicatedThread {
            stride(from: 0, to: count, by: 1_000).allSatisfy { start in gpsd.send(Self.flood(start..<start + 1_000)) }
                && gpsd.send([FakeGPSD.tpv(46.5877, 7.648, time: "2024-05-01T23:00:00.000Z")])
        }
        #expect(sent)
        let deadline = ContinuousClock.now + .seconds(60)
        while tally.last != "Frutigen", ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let elapsed = started.duration(to: .now)
        let grown = ProcessMemory.residentBytes() - before
        running.cancel()
        await running.value

        #expect(tally.last == "Frutigen")
        // Resident memory is the whole test process's, shared with the suites running beside this one: the bound is
        // loose (unbounded queues grew by well over 100 MiB for such a flood), the soak benchmark measures it alone.
        #expect(grown < 128 << 20, "resident memory grew \(grown >> 20) MiB")
        print("gpsd flood: \(count) TPVs in \(elapsed), \(tally.positions) positions, RSS +\(grown >> 10) KiB")
    }
}
