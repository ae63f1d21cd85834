import BreezeTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking JSON-lines client for the end-to-end tests (run it on a dedicated thread).
final class LineClient: @unchecked Sendable {
    // @unchecked: a client is used by one thread at a time; tests hand it from one dedicated thread to the next
    // only after the first has finished with it.
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects, retrying for a few seconds: a daemon may have bound its socket file a moment before listening.
    init?(path: String, timeout: Int = 10) {
        var connected = UnixSocket.connect(to: path)
        for _ in 0..<100 where connected == nil {
            usleep(50_000)
            connected = UnixSocket.connect(to: path)
        }
        guard let fd = connected else { return nil }
        self.fd = fd
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
    }

    func send(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// The next line; nil at the end of the stream, on an error or a timeout.
    func line() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            buffer += chunk[..<count]
        }
    }

    /// Lines until one containing `"id":id`.
    func reply(id: Int) -> String? {
        while let line = line() {
            if line.contains("\"id\":\(id)}") || line.contains("\"id\":\(id),") { return line }
        }
        return nil
    }
}
