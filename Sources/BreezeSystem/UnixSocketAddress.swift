#if canImport(Glibc)
    import Glibc
#endif

/// A Unix-domain socket address (`sockaddr_un`), its path checked once: every place that binds, connects or sends
/// to a Unix socket builds it here.
public struct UnixSocketAddress: Sendable {
    /// The longest path a `sockaddr_un` holds, leaving room for the terminating NUL (107 bytes on Linux).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The path as given ("@name" for an abstract socket).
    public let path: String
    private let storage: sockaddr_un
    private let length: socklen_t

    /// nil when `path` is empty, longer than `maximumPathLength` bytes or holds a NUL. With `abstract`, a leading
    /// "@" names a socket in the abstract namespace (a NUL on the wire), as systemd writes `NOTIFY_SOCKET`.
    public init?(path: String, abstract: Bool = false) {
        var bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumPathLength, !bytes.contains(0) else { return nil }
        let isAbstract = abstract && bytes[0] == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        self.path = path
        storage = address
        // An abstract name is exactly its bytes; a path is the whole structure, NUL-terminated.
        length =
            isAbstract
            ? socklen_t(MemoryLayout<sa_family_t>.size + bytes.count) : socklen_t(MemoryLayout<sockaddr_un>.size)
    }

    /// Calls `body` with the address as a `sockaddr` and its length, for `bind`, `connect`, `sendto`.
    public func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Wraps `connect`: 0, or -1 with errno set. Not retried: an interrupted connect goes on in the background.
    public func connect(_ fd: Int32) -> Int32 {
        withSocketAddress { Glibc.connect(fd, $0, $1) }
    }

    /// Wraps `bind`: 0, or -1 with errno set.
    public func bind(_ fd: Int32) -> Int32 {
        withSocketAddress { Glibc.bind(fd, $0, $1) }
    }
}
