import BreezeTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// gpsd, started as a service would be: in the foreground, on a receiver's device (or none), its own port.
struct GPSD {
    let process: ChildProcess
    let port: Int
    /// From spawning to its port accepting a connection.
    let startMilliseconds: Double

    var pid: Int32 { process.processIdentifier }

    /// Starts gpsd on `device` (nil: no receiver at all, only a control socket, as a gpsd waiting for hotplug).
    static func start(device: String?, in folder: String) throws -> GPSD {
        let port = GPSFake.freePort()
        var arguments = ["-N", "-S", String(port), "-F", folder + "/gpsd.sock"]
        if let device { arguments += ["-n", device] }
        let started = ContinuousClock.now
        let process = try ChildProcess.spawn("/usr/sbin/gpsd", arguments)
        // gpsd tells no NOTIFY_SOCKET; the first connection it accepts is the moment it listens.
        while ContinuousClock.now - started < .seconds(10) {
            if let fd = connectTCP(port) {
                let listening = elapsedMilliseconds(ContinuousClock.now - started)
                close(fd)
                return GPSD(process: process, port: port, startMilliseconds: listening)
            }
        }
        process.signal(SIGKILL)
        throw BenchError( "gpsd did not listen on \(port) within 10 s")
    }

    /// Waits (at most 10 s) until gpsd serves clients: its greeting reaches a new connection. The port accepts
    /// connections (the kernel's backlog) while gpsd is still opening its receiver, for seconds; clients that
    /// connected before this get their greetings just before it.
    func waitServing() -> Bool {
        guard let fd = connectTCP(port) else { return false }
        defer { close(fd) }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 10_000) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 1
    }

    func stop() {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }
}

/// breezed, started directly (no wrapper, so start-up is its own) with a NOTIFY_SOCKET this benchmark reads.
struct Breezed {
    let process: ChildProcess
    let folder: String
    /// From spawning to READY=1.
    let readyMilliseconds: Double

    var pid: Int32 { process.processIdentifier }
    var socket: String { folder + "/s.sock" }

    /// Starts breezed offline (no web requests), named from Bern when it has no position, reading `gpsd` (nil: no
    /// location source at all).
    static func start(binary: String, gpsd: Int?, in folder: String) throws -> Breezed {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let notify = NotifySocket(folder: folder)
        var arguments = ["--socket", folder + "/s.sock", "--state-dir", folder + "/state", "--cache-dir",
                         folder + "/cache", "--no-geoclue", "--offline", "--fallback-city", "Bern", "--log-level", "warning"]
        arguments += gpsd.map { ["--gpsd", "127.0.0.1:\($0)"] } ?? ["--no-gpsd"]
        let started = ContinuousClock.now
        let process = try ChildProcess.spawn(binary, arguments, environment: ["NOTIFY_SOCKET": notify.path])
        guard let ready = notify.waitSynchronously(for: "READY=1", timeout: 20) else {
            process.signal(SIGKILL)
            throw BenchError( "breezed sent no READY=1 within 20 s")
        }
        return Breezed(process: process, folder: folder, readyMilliseconds: elapsedMilliseconds(ready - started))
    }

    /// Waits (at most 10 s) until breezed is connected to gpsd's port.
    func waitConnected(to port: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if TCPTableEntry.all().contains(where: { $0.remotePort == port && $0.state == "01" }) { return true }
            usleep(5_000)
        }
        return false
    }

    /// Waits (at most `seconds`) until breezed's PERMISSION says its source has no fix: with a silent receiver,
    /// the fix timeout after connecting (30 s) has passed, and nothing is left to happen.
    func waitNoFix(seconds: Int32) -> Bool {
        guard let fd = UnixSocket.connect(to: socket) else { return false }
        defer { close(fd) }
        let hello = Array("{\"command\":\"watch\"}\n".utf8)
        guard hello.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == hello.count else {
            return false
        }
        let wanted = Array(#""reason":"no-fix""#.utf8)
        let deadline = ContinuousClock.now + .seconds(Int(seconds))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) >= 0 else { return false }
            guard entry.revents != 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            received += chunk[..<count]
            if received.firstRange(of: wanted) != nil { return true }
        }
        return false
    }

    func stop() {
        process.signal(SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// A TCP connection to 127.0.0.1:`port`, or nil when nothing listens there.
func connectTCP(_ port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}
