import BreezeSystem
import CEpoll

#if canImport(Glibc)
    import Glibc
#endif

/// The socket thread's wait for readiness, over epoll: the kernel keeps the interest list, so a turn of the loop
/// costs what is ready, not what is connected (poll took every client's descriptor on every turn).
final class EventPoller: Sendable {
    struct Ready {
        var fd: Int32
        var readable: Bool
        var writable: Bool
        /// Hung up or in error: reading finds out which.
        var closed: Bool
    }

    private let epoll: Int32
    /// Where the kernel writes what is ready: allocated once, not for every wait. Only the one thread that waits
    /// (the socket thread) touches it.
    nonisolated(unsafe) private let readyEvents: UnsafeMutableBufferPointer<epoll_event>

    /// Wraps `epoll_create1`, which fails when the process is out of descriptors. A wait returns at most
    /// `maximumCount` ready descriptors.
    init(maximumCount: Int) throws(SystemCallError) {
        epoll = try syscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        readyEvents = .allocate(capacity: max(1, maximumCount))
    }

    deinit {
        close(epoll)
        readyEvents.deallocate()
    }

    /// Watches `fd` for input when `readable` (not while a client is held back), for room to write when
    /// `writable`; a hang-up or an error is reported either way.
    func add(_ fd: Int32, readable: Bool = true, writable: Bool = false) {
        control(EPOLL_CTL_ADD, fd, readable: readable, writable: writable)
    }

    func change(_ fd: Int32, readable: Bool, writable: Bool) {
        control(EPOLL_CTL_MOD, fd, readable: readable, writable: writable)
    }

    private func control(_ operation: Int32, _ fd: Int32, readable: Bool, writable: Bool) {
        var event = epoll_event()
        event.events = (readable ? EPOLLIN.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = fd
        _ = epoll_ctl(epoll, operation, fd, &event)  // fails only for a descriptor already closed: nothing to watch
    }

    /// Waits up to `timeoutMilliseconds` (-1: no limit) for descriptors to be ready, and returns them (at most the
    /// `maximumCount` given at the start); empty on timeout or a signal.
    func wait(timeoutMilliseconds: Int32) -> [Ready] {
        // Never nil (at least one event is allocated); unwrapped for the Glibc imports that take no optional here.
        let count = Int(
            epoll_wait(epoll, readyEvents.baseAddress!, Int32(clamping: readyEvents.count), timeoutMilliseconds))
        guard count > 0 else { return [] }
        return readyEvents[..<count].map { event in
            Ready(
                fd: event.data.fd,
                readable: event.events & EPOLLIN.rawValue != 0,
                writable: event.events & EPOLLOUT.rawValue != 0,
                closed: event.events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0)
        }
    }
}
