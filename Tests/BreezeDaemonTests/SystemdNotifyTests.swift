import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What breezed tells systemd through NOTIFY_SOCKET, as systemd would receive it.
@Suite(.enabled(if: BreezedProcess.isAvailable, "needs the release build (scripts/test builds it)"))
struct SystemdNotifyTests {
    @Test func readyStatusWatchdogAndStopping() async throws {
        let folder = try BreezedProcess.makeFolder()
        let notify = NotifySocket(folder: folder)
        let daemon = try await BreezedProcess(
            folder: folder, ["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"],
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"])
        let started = await notify.receive(timeout: 10) { messages in
            messages.contains("READY=1") && messages.contains { $0.hasPrefix("STATUS=Bern, Switzerland") }
                && messages.filter { $0 == "WATCHDOG=1" }.count >= 2
        }
        #expect(started.contains("READY=1"), "\(started)")
        #expect(started.contains { $0 == "STATUS=Bern, Switzerland · manual" }, "\(started)")
        #expect(started.filter { $0 == "WATCHDOG=1" }.count >= 2, "a watchdog ping every 0.2 s: \(started)")
        daemon.signal(SIGTERM)
        let stopping = await notify.receive(timeout: 10) { $0.contains("STOPPING=1") }
        #expect(stopping.contains("STOPPING=1"))
        #expect(await daemon.exitStatus() == 0)
    }
}
