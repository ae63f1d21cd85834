import BreezeSystem
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The service manager's side channels, without libsystemd: `sd_notify` datagrams to `NOTIFY_SOCKET`, the
/// watchdog interval, and descriptors passed by socket activation.
public struct Systemd: Sendable {
    private let notifyPath: String?
    /// Half of `WatchdogSec`, when the service manager watches us.
    public let watchdogInterval: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        notifyPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = environment["WATCHDOG_USEC"], let usec = Int(text), usec > 0,
            environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true
        {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `state` ("READY=1", "STATUS=…", "WATCHDOG=1", "STOPPING=1"); does nothing outside systemd.
    public func notify(_ state: String) {
        // An abstract socket is named with a leading "@", which is a NUL on the wire.
        guard let notifyPath, let address = UnixSocketAddress(path: notifyPath, abstract: true) else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let message = Array(state.utf8)
        // Never block on the service manager. STATUS and WATCHDOG are dropped when its queue is full (the next one
        // follows soon); READY and STOPPING matter once, so they are tried again for up to a second.
        let attempts = state.hasPrefix("READY=") || state.hasPrefix("STOPPING=") ? 100 : 1
        for attempt in 0..<attempts {
            let sent = address.withSocketAddress { socketAddress, length in
                message.withUnsafeBytes {
                    sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), socketAddress, length)
                }
            }
            if sent >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { return }
            if attempt + 1 < attempts { usleep(10_000) }
        }
    }

    /// The first descriptor passed by socket activation (3), if `LISTEN_PID` is us and `LISTEN_FDS` ≥ 1.
    /// The variables are removed so children do not inherit them.
    public static func listenDescriptor() -> Int32? {
        let environment = ProcessInfo.processInfo.environment
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1
        else { return nil }
        _ = fcntl(3, F_SETFD, FD_CLOEXEC)
        return 3
    }
}
