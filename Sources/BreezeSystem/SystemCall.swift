#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: which one, and errno.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// What the system says errno means ("Connection refused").
    public var reason: String {
        String(cString: strerror(errno))
    }

    public var description: String {
        "\(call): \(reason) (errno \(errno))"
    }
}

// The funnels are inlinable so that each caller gets them for its own integer type: called through the
// FixedWidthInteger witness tables (`== -1` included), they cost more than the work around them on the socket's and
// gpsd's threads.

/// The one funnel for system calls: retries on EINTR, throws an error naming the call. Never use it for `close`
/// (Linux releases the descriptor even when close is interrupted: a retry could close another thread's new one).
@discardableResult @inlinable
public func syscall<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemCallError) -> T {
    let result = retryingOnInterrupt(body)
    if result == -1 { throw SystemCallError(call: name, errno: errno) }
    return result
}

/// The funnel for calls on a non-blocking descriptor: as `syscall`, but nil when the call would block
/// (EAGAIN, EWOULDBLOCK).
@inlinable
public func syscallUnlessWouldBlock<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemCallError) -> T?
{
    let result = retryingOnInterrupt(body)
    guard result == -1 else { return result }
    let code = errno
    if code == EAGAIN || code == EWOULDBLOCK { return nil }
    throw SystemCallError(call: name, errno: code)
}

/// Calls `body` again while it fails with EINTR; returns its result, with errno as the last call left it. For a
/// caller that sorts the other failures itself. Never use it for `close`.
@inlinable
public func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
