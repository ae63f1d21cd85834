import BreezeSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A Unix socket in a temporary folder that plays breezed for the connections it accepts: `script` runs with
/// each accepted descriptor on a thread of its own, which closes it afterwards.
final class FakeDaemon: Sendable {
    let path: String
    private let listener: Int32

    init(script: @escaping @Sendable (Int32) -> Void) {
        let path = NSTemporaryDirectory() + "breezectl-\(UUID().uuidString.prefix(8)).sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.path = path
        self.listener = listener
        _ = UnixSocketAddress(path: path)?.bind(listener)
        listen(listener, 16)
        Thread.detachNewThread {
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                Thread.detachNewThread {
                    script(fd)
                    close(fd)
                }
            }
        }
    }

    /// Stops accepting and removes the socket.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }

    /// Writes all of `text`; gives up when the peer has gone.
    static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// Reads until the peer closes the connection.
    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while buffer.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
    }
}

/// What one breezectl run printed, and its exit status.
struct BreezectlRun: Sendable {
    var status: Int32
    var output: String
    var errors: String
}

/// Text collected from breezectl's outputs.
final class Collected: @unchecked Sendable {
    // @unchecked: every access to `text` holds `lock`.
    private let lock = NSLock()
    private var text = ""

    func append(_ more: String) { lock.withLock { text += more } }
    var value: String { lock.withLock { text } }
}
