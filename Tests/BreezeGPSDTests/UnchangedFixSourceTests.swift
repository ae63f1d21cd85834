import BreezeCore
import BreezeGPSD
import BreezeLocation
import BreezeTestSupport
import Foundation
import Synchronization
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
        // The service runs on the cooperative pool, which it shares with every test running beside it: the
        // longest the pool was too busy to wake a task is kept, to tell a fix lost there from one lost here.
        let poolPauses = Mutex(Duration.zero)
        let heartbeat = Task.detached {
            let clock = ContinuousClock()
            var last = clock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
                let now = clock.now
                poolPauses.withLock { $0 = max($0, now - last - .milliseconds(20)) }
                last = now
            }
        }
        // 33 epochs a second at rest for 4 s, twice the fix timeout (epochs 30 ms apart in the receiver's time too),
        // sent from a thread of their own, not from the pool. The longest pause between two is kept.
        let longestPause = await withCheckedContinuation { (done: CheckedContinuation<Duration, Never>) in
            Thread.detachNewThread {
                let clock = ContinuousClock()
                var last = clock.now
                var longest = Duration.zero
                for epoch in 0..<133 {
                    gpsd.send([Self.tpv(second: epoch * 30)])
                    usleep(30_000)
                    let now = clock.now
                    longest = max(longest, now - last)
                    last = now
                }
                done.resume(returning: longest)
            }
        }
        let passed = harness.source.fixCount
        heartbeat.cancel()
        let poolPause = poolPauses.withLock { $0 }
        await harness.stop()

        let permissions = harness.permissions
        let authorized = try #require(permissions.firstIndex(of: .authorized(.gpsd)))
        // A pool blocked for the fix timeout less one repeat's interval would leave the service without a fix that
        // long, whatever the source does: the pool's longest pause is in the messages. Such pauses (2 s and more)
        // came from tests beside this one that held both threads of a two-core machine's pool with seconds of
        // synchronous work (a quadratic queue in `ScriptedSource`, a system call per random byte); both are gone.
        #expect(
            !permissions[authorized...].contains { $0.reason?.code == .noFix },
            "\(permissions); the longest pause between two epochs sent: \(longestPause), of the pool: \(poolPause)")
        // At rest: named once; each repeat passed on is the same place with a newer fix.
        #expect(await harness.service.namings == 1, "the longest pause of the pool: \(poolPause)")
        #expect(Set(harness.positions.map(\.place.id)).count == 1 && harness.positions.count <= passed)
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
