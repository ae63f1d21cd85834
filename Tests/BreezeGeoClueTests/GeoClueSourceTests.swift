import BreezeCore
import BreezeGeoClue
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The GeoClue source against the real GeoClue 2.6 on a private system bus.
@Suite(.serialized, .enabled(if: GeoClueRig.isAvailable, "needs root, geoclue-2.0, dbus and unshare"))
struct GeoClueSourceTests {
    static let adelboden = (46.4929, 7.5607)
    static let frutigen = (46.5877, 7.6480)

    /// Events from a source, recorded.
    final class Recording: Sendable {
        let recorder = EventRecorder<LocationSourceEvent>()
        let source: GeoClueSource
        let task: Task<Void, Never>

        init(_ source: GeoClueSource) {
            self.source = source
            let recorder = recorder
            let stream = source.events()
            task = Task { for await event in stream { recorder.append(event) } }
        }

        var fixes: [LocationFix] {
            recorder.all.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
        }

        func stop() async {
            source.stop()
            await task.value
        }
    }

    static func configuration(_ rig: GeoClueRig) -> GeoClueSource.Configuration {
        var configuration = GeoClueSource.Configuration()
        configuration.busAddress = rig.busAddress
        configuration.callTimeout = 3
        configuration.backoff = RetryBackoff(initial: 0.3, maximum: 2, multiplier: 2, jitter: 0)
        configuration.refusedRetry = 60
        return configuration
    }

    @Test func anAuthorizedClientFollowsTheMovingPosition() async throws {
        let rig = try await GeoClueRig()
        rig.fix(Self.adelboden.0, Self.adelboden.1)
        let recording = Recording(GeoClueSource(configuration: Self.configuration(rig)))
        let first = await recording.recorder.wait(timeout: 20) { _ in !recording.fixes.isEmpty }
        #expect(first, "events: \(summary(recording.recorder.all))")
        rig.fix(Self.frutigen.0, Self.frutigen.1)
        let moved = await recording.recorder.wait(timeout: 20) { _ in
            recording.fixes.last.map { abs($0.coordinate.latitude - Self.frutigen.0) < 0.001 } ?? false
        }
        #expect(moved, "fixes: \(recording.fixes.map(\.coordinate))")
        let events = recording.recorder.all
        #expect(events.first == .connecting)
        #expect(events.contains(.connected))
        let fix = try #require(recording.fixes.first)
        #expect(abs(fix.coordinate.latitude - Self.adelboden.0) < 0.001)
        #expect(abs(fix.coordinate.longitude - Self.adelboden.1) < 0.001)
        #expect(fix.source == .geoclue)
        await recording.stop()
        await rig.stop()
    }
}
