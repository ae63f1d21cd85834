import BreezeCore
import BreezeProtocol
import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking connection to breezed's socket: breezectl sends a request and reads lines until its reply, each wait
/// bounded by a deadline so that a daemon that does not answer cannot hang it.
public final class ControlConnection {
    /// The longest line read from the daemon: far above any reply (a `PLACES` list of 50 cities is a few KiB).
    public static let maximumLineLength = 1 << 20

    private let fd: Int32
    private var framer = LineFramer(maximumLength: ControlConnection.maximumLineLength)
    private var pending: [String] = []
    private var nextID = 1
    /// The seconds allowed, for the message; nil: wait as long as it takes.
    private var timeout: Double?
    private var deadline: ContinuousClock.Instant?

    /// Takes over `descriptor`, a connected stream socket, and closes it when done; each read waits at most
    /// `timeout` seconds from now (nil: no limit).
    public init(descriptor: Int32, timeout: Double? = nil) {
        fd = descriptor
        setDeadline(timeout)
    }

    /// Connects to `path` within `timeout` seconds; throws `unreachable` with a hint.
    public init(path: String, timeout: Double? = nil) throws(CLIError) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw CLIError(.unreachable, "cannot create a socket: \(String(cString: strerror(errno)))")
        }
        // From here every stored property is set, so a throw runs `deinit`, which closes the socket: closing it here
        // too closed a descriptor number that another thread may have been given meanwhile.
        guard let address = UnixSocketAddress(path: path) else {
            // An empty path names no socket: nothing to reach, as before there was a check for it.
            if path.isEmpty { throw Self.unreachable(path, ENOENT) }
            throw CLIError(.usage, "socket path too long: \(TerminalText.escaped(path))")
        }
        let timeout = timeout.map(Self.bounded)
        if let timeout {
            // A Unix-socket connect waits for room in a full listen backlog for at most the send timeout; the
            // same timeout bounds a send into a daemon that reads nothing.
            var limit = timeval(
                tv_sec: Int(timeout.rounded(.towardZero)),
                tv_usec: Int(timeout.truncatingRemainder(dividingBy: 1) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        let result = address.connect(fd)
        if result != 0 {
            let code = errno
            if code == EAGAIN || code == EINPROGRESS, let timeout { throw Self.timedOut(timeout) }
            throw Self.unreachable(path, code)
        }
        setDeadline(timeout)
    }

    private static func unreachable(_ path: String, _ code: Int32) -> CLIError {
        // A path that is there but is no socket is a wrong path, not a daemon that is down ("Connection refused").
        var info = stat()
        if code == ECONNREFUSED || code == ENOTSOCK, stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK {
            let kind = info.st_mode & S_IFMT == S_IFDIR ? "a directory" : "a file"
            return CLIError(
                .unreachable,
                "cannot reach breezed at \(TerminalText.escaped(path)): it is \(kind), not a socket\n"
                    + "hint: breezed's socket is \(BreezeCTL.defaultSocket) unless breezed.conf says otherwise; "
                    + "another one: --socket PATH or BREEZE_SOCKET.")
        }
        return CLIError(
            .unreachable,
            "cannot reach breezed at \(TerminalText.escaped(path)): \(String(cString: strerror(code)))\n"
                + "hint: is breezed running ('systemctl status breezed')? Another socket: --socket PATH or BREEZE_SOCKET."
        )
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// From now on, waits for the daemon as long as it takes (`watch`, once the daemon has answered).
    public func waitWithoutLimit() {
        setDeadline(nil)
    }

    /// `timeout` within 1 ms and `CommandLineArguments.maximumTimeout`, so that the arithmetic on it cannot trap.
    static func bounded(_ timeout: Double) -> Double {
        guard timeout.isFinite else { return CommandLineArguments.maximumTimeout }
        return min(max(timeout, 0.001), CommandLineArguments.maximumTimeout)
    }

    private func setDeadline(_ timeout: Double?) {
        let timeout = timeout.map(Self.bounded)
        self.timeout = timeout
        deadline = timeout.map { ContinuousClock.now + .milliseconds(Int64(($0 * 1_000).rounded(.up))) }
    }

    static func timedOut(_ timeout: Double) -> CLIError {
        CLIError(.unreachable, "breezed did not answer within \(printfFormat("%g", timeout)) s", timedOut: true)
    }

    /// Sends a request with a fresh id; returns the id. When the daemon has closed the connection (at its client
    /// limit, or stopping), its `ERROR` line is usually waiting to be read: that reason is thrown.
    @discardableResult
    public func send(_ command: String, _ arguments: [(String, JSONValue)] = []) throws(CLIError) -> Int {
        let id = nextID
        nextID += 1
        let request = JSONValue.object([("command", .string(command))] + arguments + [("id", .number(Double(id)))])
        var bytes = Array(request.encoded().utf8)
        bytes.append(10)
        var sent = 0
        while sent < bytes.count {
            let count = retryingOnInterrupt {
                bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            if count < 0 {
                let code = errno
                if code == EAGAIN, let timeout { throw Self.timedOut(timeout) }
                throw reasonForClosing() ?? CLIError(.unreachable, "breezed closed the connection")
            }
            sent += count
        }
        return id
    }

    /// After a failed send: the daemon's `ERROR`, if it left one before closing.
    private func reasonForClosing() -> CLIError? {
        while let message = try? next() {
            if message["class"]?.stringValue == "ERROR" { return CLIError(daemonError: message) }
        }
        return nil
    }

    /// The next object from the daemon; nil when it closes the connection. Throws when the deadline passes, or
    /// for a line over `maximumLineLength` or not UTF-8 (a reply lost, so waiting on would be for ever).
    public func next() throws(CLIError) -> JSONValue? {
        while pending.isEmpty {
            try waitForInput()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = retryingOnInterrupt { buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
            if count < 0 {
                let code = errno
                // The daemon closed with our request unread: what it sent before has been read already.
                if code == ECONNRESET { return nil }
                throw CLIError(.unreachable, "lost the connection to breezed: \(String(cString: strerror(code)))")
            }
            if count == 0 { return nil }
            try frame(buffer[0..<count])
        }
        return try Self.decode(pending.removeFirst())
    }

    /// Lines framed from bytes read; a line too long or not UTF-8 is an error (its reply is lost).
    private func frame(_ bytes: ArraySlice<UInt8>) throws(CLIError) {
        for event in framer.push(bytes) {
            switch event {
            case .line(let line): pending.append(line)
            case .tooLong: throw CLIError(.failure, "breezed sent a line over \(Self.maximumLineLength >> 20) MiB")
            case .invalidText: throw CLIError(.failure, "breezed sent a line that is not UTF-8 text")
            }
        }
    }

    /// One framed line as the object it is.
    private static func decode(_ line: String) throws(CLIError) -> JSONValue {
        do throws(ProtocolError) {
            return try JSONValue.parse(line)
        } catch {
            throw CLIError(.failure, "breezed sent a line that is not JSON: \(TerminalText.escaped(error.message))")
        }
    }

    /// The socket, for a caller that waits on it with others (the interactive search's poll loop).
    var descriptor: Int32 { fd }

    /// The objects one read brings (call it when `descriptor` is readable, so that it does not block); nil when
    /// the daemon has closed the connection. Lines it leaves unfinished wait for the next read.
    func receiveAvailable() throws(CLIError) -> [JSONValue]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = retryingOnInterrupt {
            buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        }
        if count < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK { return [] }
            if code == ECONNRESET { return nil }
            throw CLIError(.unreachable, "lost the connection to breezed: \(String(cString: strerror(code)))")
        }
        if count == 0 { return nil }
        try frame(buffer[0..<count])
        var objects: [JSONValue] = []
        while !pending.isEmpty { objects.append(try Self.decode(pending.removeFirst())) }
        return objects
    }

    /// Whether a line, or the end of the connection, is there to read within `seconds` (`watch` redraws its line
    /// when nothing came for a while, so that the ages it shows stay true).
    public func hasInput(within seconds: Double) -> Bool {
        guard pending.isEmpty else { return true }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: Int((Self.bounded(seconds) * 1_000).rounded(.up)))
        let ready = retryingOnInterrupt { Int(poll(&descriptor, 1, milliseconds)) }
        return ready != 0
    }

    /// Waits with poll() until the socket is readable, or throws when the deadline passes first.
    private func waitForInput() throws(CLIError) {
        guard let deadline, let timeout else { return }
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw Self.timedOut(timeout) }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // Interrupted, the deadline is worked out again.
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR {
                throw CLIError(.unreachable, "lost the connection to breezed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Reads until the reply to `id`; an `ERROR` reply, or one without an id (the daemon's reason for closing the
    /// connection), throws with its code mapped to an exit status.
    public func reply(to id: Int) throws(CLIError) -> JSONValue {
        while let message = try next() {
            if message["class"]?.stringValue == "ERROR" && message["id"] == nil { throw CLIError(daemonError: message) }
            guard message["id"] == .number(Double(id)) else { continue }
            if message["class"]?.stringValue == "ERROR" { throw CLIError(daemonError: message) }
            return message
        }
        throw CLIError(.unreachable, "breezed closed the connection before answering")
    }

    /// Every reply to `id`, until the reply to `end` (sent after it) arrives.
    public func replies(
        to id: Int, until end: Int, ending: (JSONValue) -> Void = { _ in }
    ) throws(CLIError) -> [JSONValue] {
        var found: [JSONValue] = []
        while let message = try next() {
            if message["class"]?.stringValue == "ERROR" && message["id"] == nil { throw CLIError(daemonError: message) }
            if message["id"] == .number(Double(end)) {
                ending(message)
                return found
            }
            guard message["id"] == .number(Double(id)) else { continue }
            if message["class"]?.stringValue == "ERROR" { throw CLIError(daemonError: message) }
            found.append(message)
        }
        throw CLIError(.unreachable, "breezed closed the connection before answering")
    }
}
