import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real gpsd, fed a log by `gpsfake` on a loopback port: what the gpsd tests talk to.
public final class GPSFake: @unchecked Sendable {
    // @unchecked: `process` is set in init and only read afterwards; ChildProcess itself is thread-safe for
    // terminate/waitUntilExit.
    public let port: Int
    private let process: ChildProcess
    private let folder: String

    /// Starts `gpsfake` replaying `log` on `port`.
    /// - Parameters:
    ///   - once: exit after one pass through the log (`-1`); otherwise loop until stopped.
    ///   - interval: seconds between sentences (`-c`).
    public init(log: String, port: Int, once: Bool = true, interval: Double = 0.02) async throws {
        self.port = port
        folder = TemporaryPaths.make("gpsfake-\(port)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var arguments = ["-p", "-q", "-n", "-P", String(port), "-c", String(interval), log]
        if once { arguments.insert("-1", at: 0) }
        process = try await ChildProcess.launch("/usr/bin/gpsfake", arguments, environment: ["TMPDIR": folder])
    }

    public var isRunning: Bool { process.isRunning }

    /// SIGTERM (gpsfake then stops its gpsd), and wait for it, suspending rather than blocking a thread.
    public func stop() async {
        if process.isRunning { process.terminate() }
        if await exited(timeout: 15) { return }
        // Rarely gpsfake ignores SIGTERM (seen once, mid start-up, on a loaded machine): do not leave it running.
        kill(process.processIdentifier, SIGKILL)
        await exited(timeout: 5)
    }

    /// Waits until gpsd listens on the port (at most `timeout` seconds), found in the kernel's socket tables rather
    /// than by connecting, which would make a client of it. Returns whether it listens.
    public func waitUntilListening(timeout: Double = 30) async -> Bool {
        let deadline = TestTime.deadline(after: timeout)
        while ContinuousClock.now < deadline {
            if TCPTableEntry.all().contains(where: { $0.localPort == port && $0.state == "0A" }) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Waits for a one-pass replay to end by itself (at most `timeout` seconds), without blocking a thread of the
    /// cooperative pool. Returns whether it ended.
    @discardableResult
    public func exited(timeout: Double = 120) async -> Bool {
        let deadline = TestTime.deadline(after: timeout)
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning { return false }
        try? FileManager.default.removeItem(atPath: folder)
        return true
    }

    /// How many TPV reports a new client watching gpsd reads in `seconds`: whether the replay still reaches clients,
    /// independently of the client under test. Zero when gpsd cannot be reached. Reads on a thread of its own.
    public func reportsToANewWatcher(seconds: Double) async -> Int {
        await onDedicatedThread { [port] in
            guard let fd = LoopbackTCP.connect(port: port) else { return 0 }
            defer { close(fd) }
            let watch = Array(#"?WATCH={"enable":true,"json":true}"#.utf8) + [10]
            guard send(fd, watch, watch.count, Int32(MSG_NOSIGNAL)) == watch.count else { return 0 }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
            while ContinuousClock.now < deadline {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 100) >= 0 else { break }
                guard entry.revents != 0 else { continue }
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received += buffer[..<count]
            }
            return String(decoding: received, as: UTF8.self).components(separatedBy: #""class":"TPV""#).count - 1
        }
    }

    /// A replay a test left running (it threw before `stop()`) is ended: gpsfake, then its gpsd, is killed.
    deinit {
        if process.isRunning {
            process.terminate()
            let process = process
            Thread.detachNewThread {
                // gpsfake stops its gpsd on SIGTERM; one that ignores it is killed, as `stop()` does.
                if !process.waitUntilExit(timeout: 15) { kill(process.processIdentifier, SIGKILL) }
            }
        }
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago and that no other test of this process was given: tests
    /// running side by side must not start two gpsds on one port (a test would read the other's receiver).
    public static func freePort() -> Int {
        while true {
            let port = systemFreePort()
            let fresh = handedOut.withLock { $0.insert(port).inserted }
            if fresh { return port }
        }
    }

    private static let handedOut = Mutex<Set<Int>>([])

    private static func systemFreePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// True when gpsfake and gpsd are installed.
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")
    }
}
