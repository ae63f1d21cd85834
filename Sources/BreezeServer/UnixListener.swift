import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A listening Unix-domain stream socket: made at a path, or inherited from systemd. Closes exactly once.
public final class UnixListener: Sendable {
    public let fd: Int32
    /// The path this listener made (and removes on close); nil for an inherited socket.
    public let path: String?
    /// The queue of connections not yet accepted, as asked of `listen`; nil for an inherited socket.
    public let backlog: Int32?
    /// The socket file made at `path` (`st_dev`, `st_ino` after bind): removed on close only while it is still
    /// this one, never a socket another listener made there since.
    private let made: (device: UInt64, inode: UInt64)?

    /// Listens on `path` with `mode` (0666 by default: every local user may connect; what each may do is decided
    /// per peer). A socket another process answers on is left alone (`inUse`); only a stale one is replaced, and
    /// a file that is not a socket is never removed. Wraps `socket`, `fchmod`, `bind`, `chown`, `chmod`, `listen`.
    ///
    /// - Parameter backlog: connections the kernel queues before they are accepted; 4,096 (the kernel's usual
    ///   `somaxconn`) is more than the server's default limit of 1,024 clients, so a burst of them all connecting
    ///   at once is queued, not refused.
    public init(path: String, mode: mode_t = 0o666, group: gid_t? = nil, backlog: Int32 = 4_096) throws(ListenerError) {
        guard let address = UnixSocketAddress(path: path) else {
            throw ListenerError(
                .pathTooLong, "\(path): a socket path is 1 to \(UnixSocketAddress.maximumPathLength) bytes")
        }

        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw ListenerError(.notASocket, "\(path) is in the way: a file that is not a socket")
            }
            guard !Self.answers(address) else {
                throw ListenerError(.inUse, "another breezed is listening on \(path)")
            }
            unlink(path)  // stale: left by a daemon that did not close it
        }

        do throws(SystemCallError) {
            let fd = try syscall("socket") {
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
            do throws(SystemCallError) {
                // bind makes the file with the socket's own mode less the umask: owner-only from the start, without
                // changing the umask, which is the whole process's (another thread creating a file meanwhile would
                // get the wrong mode). The final mode is set once the group is.
                try syscall("fchmod") { fchmod(fd, 0o600) }
                try syscall("bind \(path)") { address.bind(fd) }
                var bound = stat()
                try syscall("stat \(path)") { lstat(path, &bound) }
                if let group { try syscall("chown \(path)") { chown(path, getuid(), group) } }
                try syscall("chmod \(path)") { chmod(path, mode) }
                try syscall("listen") { listen(fd, backlog) }
                try Self.makeNonBlocking(fd)
                self.made = (UInt64(bound.st_dev), UInt64(bound.st_ino))
            } catch {
                close(fd)
                throw error
            }
            self.fd = fd
        } catch {
            throw ListenerError(error)
        }
        self.path = path
        self.backlog = backlog
    }

    /// Adopts a listening socket passed by systemd (`LISTEN_FDS`), usually descriptor 3.
    public init(inheritedDescriptor fd: Int32) throws(SystemCallError) {
        try Self.makeNonBlocking(fd)
        self.fd = fd
        self.path = nil
        self.backlog = nil
        self.made = nil
    }

    /// Whether a process accepts connections on the socket at `address`: a connection made (even one still
    /// waiting in its backlog) is a live listener; refused (nobody listening) is a stale file.
    private static func answers(_ address: UnixSocketAddress) -> Bool {
        let probe = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        let status = retryingOnInterrupt { address.connect(probe) }
        if status == 0 { return true }
        switch errno {
        case EAGAIN: return true  // its backlog is full: alive, and busy
        default: return false  // ECONNREFUSED: stale
        }
    }

    static func makeNonBlocking(_ fd: Int32) throws(SystemCallError) {
        let flags = try syscall("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        try syscall("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Removes the socket file this listener made, if it is still there and still this one (never a socket
    /// another listener has made at the path since). Idempotent; the descriptor stays open until deinit.
    public func removeSocketFile() {
        var info = stat()
        if let path, let made, lstat(path, &info) == 0, UInt64(info.st_dev) == made.device,
            UInt64(info.st_ino) == made.inode
        {
            unlink(path)
        }
    }

    deinit {
        close(fd)
        removeSocketFile()
    }
}
