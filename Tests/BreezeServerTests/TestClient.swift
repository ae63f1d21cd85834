import BreezeCore
import BreezeProtocol
import BreezeTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain client for a Unix socket, reading lines with a deadline. Waiting suspends (the socket is polled on a
/// thread of its own), so it never holds a thread of the cooperative pool.
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    /// True once the server closed the connection (a read returned end of file).
    private(set) var closedByServer = false

    init?(path: String, receiveBuffer: Int32? = nil) {
        guard let fd = UnixSocket.connect(to: path, receiveBuffer: receiveBuffer) else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func send(bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line as JSON, or nil when none comes within `timeout` seconds or the server closed.
    func next(timeout: Double = 5) async -> JSONValue? {
        guard let line = await nextLine(timeout: timeout) else { return nil }
        return try? JSONValue.parse(line)
    }

    func nextLine(timeout: Double = 5) async -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return nil }
            guard await readable(within: remaining) else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { closedByServer = true }
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
        }
    }

    /// Waits until the socket has something to read (or has closed), up to `timeout` seconds, without holding a
    /// thread of the cooperative pool (request handlers run there).
    func waitUntilReadable(timeout: Double = 10) async -> Bool {
        await readable(within: timeout)
    }

    /// Waits in the kernel on a thread of its own: the time waited is the socket's, however busy the cooperative
    /// pool is with other suites (a wait measured in sleeps on the pool runs out while the pool is busy).
    private func readable(within seconds: Double) async -> Bool {
        let fd = fd
        let milliseconds = Int32(max(0, min(seconds, 600)) * 1000)
        return await onDedicatedThread {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while true {
                let ready = poll(&entry, 1, milliseconds)
                if ready < 0 && errno == EINTR { continue }
                return ready > 0
            }
        }
    }

    /// Reads lines until one of `className` comes (returning it) or none within `timeout`.
    func next(class className: String, timeout: Double = 5) async -> JSONValue? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let value = await next(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if value["class"]?.stringValue == className { return value }
        }
        return nil
    }
}
