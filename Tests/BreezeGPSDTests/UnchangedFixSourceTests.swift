import BreezeCore
import BreezeGPSD
import BreezeLocation
import BreezeTestSupport
import Foundation
import Testing

/// The gpsd source holding back repeats of a position at rest, against a stand-in gpsd, with the location service.
@Suite struct UnchangedFixSourceTests {
    static let adelboden = (46.4929, 7.5607)

    static func tpv(second: Int) -> String {
        let time = String(format: "2024-05-01T10:%02d:%02d.%03dZ", second / 60_000, second / 1_000 % 60, second % 1_000)
        return FakeGPSD.tpv(adelboden.0, adelboden.1, time: time)
    }

    @Test func repeatsAtRestGoOnOftenEnoughToKeepTheFix() async throws {
        let gpsd = try FakeGPSD()
        defer { gpsd.stop() }
        let harness = LocationServiceHarness(
            port: gpsd.port, fixTimeout: .seconds(2), unchangedFixInterval: .milliseconds(250))
        try #require(await gpsd.waitForClient(timeout: 10))
        // 33 epochs a second at rest for 4 s, twice the fix timeout (epochs 30 ms apart in the receiver's time too).
        for epoch in 0..<133 {
            gpsd.send([Self.tpv(second: epoch * 30)])
            try await Task.sleep(for: .milliseconds(30))
        }
        let passed = harness.source.fixCount
        await harness.stop()

        let permissions = harness.permissions
        let authorized = try #require(permissions.firstIndex(of: .authorized(.gpsd)))
        #expect(!permissions[authorized...].contains { $0.reason?.code == .noFix }, "\(permissions)")
        #expect(harness.positions.count == 1)
        // About four a second; every epoch would be 133.
        #expect((6...40).contains(passed), "\(passed) fixes passed on in 4 s")
    }

    @Test func theFirstRepeatAfterLocationIsSwitchedOnAgainGoesOnAtOnce() async throws {
        let gpsd = try FakeGPSD()
        defer { gpsd.stop() }
        let harness = LocationServiceHarness(port: gpsd.port, unchangedFixInterval: .seconds(3_600))
        try #require(await gpsd.waitForClient(timeout: 10))
        gpsd.send([Self.tpv(second: 0)])
        let named = await harness.recorder.wait(timeout: 10) { _ in harness.positions.count == 1 }
        gpsd.send([Self.tpv(second: 1_000)])
        await harness.service.setLocationEnabled(false)
        await harness.service.setLocationEnabled(true)
        // The repeat sent before the switch was held back; the one after it goes on and is named again.
        gpsd.send([Self.tpv(second: 2_000)])
        let namedAgain = await harness.recorder.wait(timeout: 10) { _ in harness.positions.count == 2 }
        let passed = harness.source.fixCount
        await harness.stop()

        #expect(named && namedAgain)
        #expect(passed == 2)
    }
}
