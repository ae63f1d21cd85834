import BreezeSystem

#if canImport(Glibc)
import Glibc
#endif

/// A listening Unix-domain stream socket: made at a path, or inherited from systemd. Closes exactly once.
public final class UnixListener: Sendable {
    public let fd: Int32
    /// The path this listener made (and removes on close); nil for an inherited socket.
    public let path: String?

    /// Listens on `path` with `mode` (0660 by default). An old file there is replaced only if it is a socket.
    /// Wraps `socket`, `bind`, `chmod` and `listen`.
    public init(path: String, mode: mode_t = 0o660, group: gid_t? = nil, backlog: Int32 = 512) throws(SystemCallError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < capacity else { throw SystemCallError(call: "bind \(path)", errno: ENAMETOOLONG) }

        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw SystemCallError(call: "bind \(path) (a file that is not a socket is in the way)", errno: EEXIST)
            }
            unlink(path)
        }

        let fd = try syscall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            // Made with no access for others from the start; the mode is set before anyone can connect.
            let previous = umask(0o177)
            defer { umask(previous) }
            try syscall("bind \(path)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            if let group { try syscall("chown \(path)") { chown(path, getuid(), group) } }
            try syscall("chmod \(path)") { chmod(path, mode) }
            try syscall("listen") { listen(fd, backlog) }
            try Self.makeNonBlocking(fd)
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
        self.path = path
    }

    /// Adopts a listening socket passed by systemd (`LISTEN_FDS`), usually descriptor 3.
    public init(inheritedDescriptor fd: Int32) throws(SystemCallError) {
        try Self.makeNonBlocking(fd)
        self.fd = fd
        self.path = nil
    }

    static func makeNonBlocking(_ fd: Int32) throws(SystemCallError) {
        let flags = try syscall("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        try syscall("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    deinit {
        close(fd)
        if let path { unlink(path) }
    }
}
