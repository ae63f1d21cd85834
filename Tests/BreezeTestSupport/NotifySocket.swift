import BreezeSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket standing in for systemd's NOTIFY_SOCKET: what `sd_notify` would tell the service manager.
public final class NotifySocket: @unchecked Sendable {
    // @unchecked: the descriptor is constant and read by one thread at a time.
    public let path: String
    private let fd: Int32

    public init(folder: String) {
        path = folder + "/notify"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        _ = UnixSocketAddress(path: path)?.bind(fd)
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next datagram within `timeout` seconds, or nil.
    func next(timeout: Double) -> String? {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Blocks until a datagram containing `text` arrives (benchmarks: a plain thread); returns when, or nil.
    public func waitSynchronously(for text: String, timeout: Double = 20) -> ContinuousClock.Instant? {
        let deadline = TestTime.deadline(after: timeout)
        while ContinuousClock.now < deadline {
            if let message = next(timeout: 0.1), message.contains(text) { return .now }
        }
        return nil
    }

    /// Datagrams received until `condition` holds or `timeout` seconds pass (on a thread of its own).
    public func receive(timeout: Double, until condition: @escaping @Sendable ([String]) -> Bool) async -> [String] {
        await onDedicatedThread { [self] in
            var messages: [String] = []
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline && !condition(messages) {
                if let message = next(timeout: 0.2) { messages.append(message) }
            }
            return messages
        }
    }
}
