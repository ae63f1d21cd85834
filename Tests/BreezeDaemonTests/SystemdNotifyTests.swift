import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What breezed tells systemd through NOTIFY_SOCKET, as systemd would receive it.
@Suite(.enabled(if: BreezedProcess.isAvailable, "needs the release build (scripts/test builds it)"))
struct SystemdNotifyTests {
    /// A datagram socket standing in for systemd's.
    final class NotifySocket: @unchecked Sendable {
        // @unchecked: the descriptor is read by one thread at a time (the test's dedicated thread).
        let path: String
        let fd: Int32

        init(folder: String) {
            path = folder + "/notify"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (i, byte) in path.utf8.enumerated() { buffer[i] = byte }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            var time = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(fd) }

        /// Datagrams received until `condition` holds or `timeout` seconds pass.
        func receive(timeout: Double, until condition: @escaping @Sendable ([String]) -> Bool) async -> [String] {
            await onDedicatedThread { [self] in
                var messages: [String] = []
                let deadline = Date().addingTimeInterval(timeout)
                var buffer = [UInt8](repeating: 0, count: 4096)
                while Date() < deadline && !condition(messages) {
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count > 0 { messages.append(String(decoding: buffer[..<count], as: UTF8.self)) }
                }
                return messages
            }
        }
    }

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
