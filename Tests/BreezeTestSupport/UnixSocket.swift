import BreezeSystem

#if canImport(Glibc)
import Glibc
#endif

/// Client-side Unix socket helpers for tests and benchmarks.
public enum UnixSocket {
    /// A stream socket connected to `path`, or nil. Optionally with a small receive buffer (a slow reader).
    public static func connect(to path: String, receiveBuffer: Int32? = nil) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard let address = UnixSocketAddress(path: path), address.connect(fd) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
