import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The least any server on this machine can do for a request on a Unix socket: a thread blocked in `recv` that
/// writes each line it gets straight back. Its round trip is the floor under every daemon's in the same run: the
/// client's and the server's wake-ups and four system calls, no work. A request line ends in its own `"id":N}`, so
/// the echo is the answer `Asker` waits for.
final class EchoServer {
    let path: String
    private let listener: Int32

    init(path: String) {
        self.path = path
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = listener
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else {
            fatalError("echo server: cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }  // closed by stop()
                Thread.detachNewThread {
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                        guard count > 0,
                            buffer.withUnsafeBytes({ send(client, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }) == count
                        else { break }
                    }
                    close(client)
                }
            }
        }
    }

    /// Stops accepting; a connected client's thread ends when the client closes.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }
}
