import BreezeCore
import BreezeGPSD
import BreezeTestSupport
import Testing

/// Each way of not reaching gpsd is told apart, in the words of what failed (never "Unknown error -6").
@Suite struct GPSDConnectFailureTests {
    /// The first reason the source gives for not reaching gpsd at `address`, within a deadline.
    func firstReason(_ address: GPSDAddress) async -> PermissionReason? {
        let source = GPSDSource(address: address, backoff: RetryBackoff(initial: 30, maximum: 30))
        defer { source.stop() }
        let reason = await withTaskGroup(of: PermissionReason?.self) { group in
            group.addTask {
                for await event in source.events() {
                    if case .lost(let reason) = event { return reason }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))  // a deadline, not a wait for the answer
                return nil
            }
            let first = await group.next() ?? nil
            source.stop()
            group.cancelAll()
            return first
        }
        return reason
    }

    @Test func aHostThatDoesNotResolveIsNamedAsSuch() async throws {
        let reason = try #require(await firstReason(GPSDAddress(host: "no-such-gpsd-host.invalid", port: 2947)))
        #expect(reason.code == .notRunning)
        #expect(reason.message.hasPrefix("cannot resolve gpsd's host \"no-such-gpsd-host.invalid\""), "\(reason.message)")
        #expect(!reason.message.contains("Unknown error"))
        #expect(reason.hint?.contains("getent hosts no-such-gpsd-host.invalid") == true)
    }

    @Test func aPortThatIsNoServiceIsNamedAsSuch() async throws {
        let reason = try #require(await firstReason(GPSDAddress(host: "127.0.0.1", port: -1)))
        #expect(reason.message.hasPrefix("gpsd's port \"-1\" is not a port"), "\(reason.message)")
        #expect(!reason.message.contains("Unknown error"))
    }

    @Test func nothingListeningIsGpsdNotRunning() async throws {
        let port = GPSFake.freePort()
        let reason = try #require(await firstReason(GPSDAddress(host: "127.0.0.1", port: port)))
        #expect(reason.message == "gpsd is not running on 127.0.0.1:\(port)")
    }
}
