public import BreezeCore
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

    /// Sends `state` ("STATUS=…", "WATCHDOG=1"); does nothing outside systemd. Never blocks on the service manager:
    /// dropped when its queue is full (the next one follows soon). Returns false only then.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        // An abstract socket is named with a leading "@", which is a NUL on the wire.
        guard let notifyPath, let address = UnixSocketAddress(path: notifyPath, abstract: true) else { return true }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        let message = Array(state.utf8)
        let sent = address.withSocketAddress { socketAddress, length in
            message.withUnsafeBytes {
                sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), socketAddress, length)
            }
        }
        return sent >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Sends `state` ("READY=1", "STOPPING=1"), which matters once: while the service manager's queue is full, tried
    /// again every 10 ms on `clock`, for up to a second.
    public func notifyOnce(_ state: String, clock: any ServiceClock) async {
        for _ in 0..<100 {
            if notify(state) { return }
            guard (try? await clock.sleep(for: .milliseconds(10))) != nil else { return }
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
