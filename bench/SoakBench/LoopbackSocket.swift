import BreezeSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The client side of breezed's socket as the hostile clients use it: connects that never wait on a full backlog,
/// sends that never raise SIGPIPE, and reads bounded by a deadline.
enum LoopbackSocket {
    enum Connected {
        case connected(Int32)
        /// The listener's backlog was full (EAGAIN): the daemon is not accepting fast enough.
        case backlogFull
        case failed(Int32)
    }

    /// A non-blocking connect to the Unix socket at `path`; the descriptor is left non-blocking.
    static func connect(_ path: String) -> Connected {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failed(errno) }
        guard let address = UnixSocketAddress(path: path) else {
            close(fd)
            return .failed(ENAMETOOLONG)
        }
        let status = address.connect(fd)
        if status == 0 { return .connected(fd) }
        let error = errno
        close(fd)
        return error == EAGAIN ? .backlogFull : .failed(error)
    }

    /// Connects, retrying a full backlog every 10 ms until `run` is over; nil if it never connects.
    static func connect(_ run: SoakRun, tally: Tally) -> Int32? {
        while !run.isOver {
            switch connect(run.socketPath) {
            case .connected(let fd): return fd
            case .backlogFull:
                tally.add("backlog full")
                usleep(10_000)
            case .failed:
                tally.add("connect failed")
                usleep(100_000)
            }
        }
        return nil
    }

    enum Sent {
        /// Bytes written (maybe fewer than asked: the socket is full).
        case wrote(Int)
        /// The daemon closed the connection.
        case closed
    }

    /// One non-blocking send of `bytes[from...]`, waiting at most `wait` seconds for room.
    static func send(_ fd: Int32, _ bytes: [UInt8], from: Int = 0, wait: Double) -> Sent {
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, Int32(wait * 1000)) > 0 else { return .wrote(0) }
        let count = bytes.withUnsafeBytes { raw in
            Glibc.send(fd, raw.baseAddress! + from, raw.count - from, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if count >= 0 { return .wrote(count) }
        return errno == EAGAIN || errno == EINTR ? .wrote(0) : .closed
    }

    /// The next line from `fd` within `wait` seconds (without its newline), or nil on timeout or end of file;
    /// `buffer` carries what followed it.
    static func readLine(_ fd: Int32, _ buffer: inout [UInt8], wait: Double) -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&entry, 1, max(1, milliseconds)) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 { return nil }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return nil
            }
            buffer += chunk[..<count]
        }
    }

    /// The `code` of an ERROR line, the `class` of any other object, or "not JSON".
    static func kind(of line: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return "not JSON"
        }
        if let code = object["code"] as? String { return code }
        return object["class"] as? String ?? "no class"
    }
}
