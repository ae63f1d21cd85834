#if canImport(Glibc)
    import Glibc
#endif

/// A pipe a thread can wait on beside another descriptor, so another thread can wake it (to stop it).
/// Owns both descriptors and closes each exactly once, in `deinit`.
public final class WakeupPipe: Sendable {
    public let readEnd: Int32
    let writeEnd: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        } else {
            // Without a pipe the thread cannot be woken; it then only notices a stop at its next wake-up.
            ends = [-1, -1]
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Wakes the waiting thread. Safe from any thread, any number of times.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake-up.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }

    /// Waits until `fd` is readable, the pipe is woken, or `timeout` seconds pass (nil: no limit).
    /// Returns true when `fd` is readable (or has hung up). Wraps `poll`, retrying on EINTR.
    public func wait(for fd: Int32?, timeout: Double?) -> Bool {
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        if let fd { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map { Int32(max(0, min(Double(Int32.max), $0 * 1000)).rounded(.up)) } ?? -1
        let ready = retryingOnInterrupt { poll(&fds, nfds_t(fds.count), milliseconds) }
        guard ready > 0, fds.count > 1 else { return false }
        return fds[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }
}
