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

    public var description: String {
        "\(call): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// The one funnel for system calls: retries on EINTR, throws an error naming the call. Never use it for `close`.
@discardableResult
public func syscall<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        if errno == EINTR { continue }
        throw SystemCallError(call: name, errno: errno)
    }
}
