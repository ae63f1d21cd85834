import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto broker (Debian's), on a free loopback port, with its configuration, password file and
/// certificates in a temporary folder; stopped by `stop()`, and killed when released if a test failed first.
public final class Mosquitto: Sendable {
    public struct Options: Sendable {
        /// Users and their passwords; none: anonymous clients are allowed.
        public var users: [String: String] = [:]
        /// A TLS listener with this certificate and key.
        public var certificate: (certificate: String, key: String)?

        public init(users: [String: String] = [:], certificate: (certificate: String, key: String)? = nil) {
            self.users = users
            self.certificate = certificate
        }
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    public let folder: String
    private let process = Mutex<ChildProcess?>(nil)

    /// Starts a broker on a free port, or on `fixedPort`.
    public init(_ options: Options = Options(), port fixedPort: Int? = nil) async throws {
        folder = TemporaryPaths.make("mosquitto")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var lastError = "no port tried"
        var chosen: Int?
        for _ in 0..<(fixedPort == nil ? 5 : 1) {
            let candidate = fixedPort ?? Self.freePort()
            var config = "listener \(candidate) 127.0.0.1\npersistence false\nlog_dest stderr\n"
                + "log_type error\nlog_type warning\nuser root\n"
            if options.users.isEmpty {
                config += "allow_anonymous true\n"
            } else {
                let passwords = folder + "/passwords"
                _ = FileManager.default.createFile(atPath: passwords, contents: Data())
                for (user, password) in options.users {
                    let tool = try ChildProcess.spawn("/usr/bin/mosquitto_passwd", ["-b", passwords, user, password])
                    _ = await onDedicatedThread { tool.waitUntilExit(timeout: 20) }
                    guard tool.terminationStatus == 0 else { throw FixtureError(description: "mosquitto_passwd failed") }
                }
                config += "allow_anonymous false\npassword_file \(passwords)\n"
            }
            if let certificate = options.certificate {
                config += "certfile \(certificate.certificate)\nkeyfile \(certificate.key)\n"
            }
            try config.write(toFile: folder + "/mosquitto.conf", atomically: true, encoding: .utf8)
            let child = try await Self.launch(folder)
            if await Self.accepts(port: candidate, while: child) {
                process.withLock { $0 = child }
                chosen = candidate
                break
            }
            child.signal(SIGKILL)
            _ = await onDedicatedThread { child.waitUntilExit(timeout: 10) }
            lastError = (try? String(contentsOfFile: folder + "/mosquitto.log", encoding: .utf8)) ?? "?"
        }
        guard let chosen else { throw FixtureError(description: "mosquitto did not start: \(lastError)") }
        port = chosen
    }

    deinit {
        if let child = process.withLock({ $0 }), child.isRunning { child.signal(SIGKILL) }
    }

    /// `mqtt://127.0.0.1:PORT`, or `mqtts://` for a TLS listener.
    public func url(scheme: String = "mqtt", user: String? = nil) -> String {
        "\(scheme)://\(user.map { "\($0)@" } ?? "")127.0.0.1:\(port)"
    }

    /// Stops the broker (SIGTERM) and waits for it to end.
    public func stop() async {
        guard let child = process.withLock({ $0 }) else { return }
        if child.isRunning { child.signal(SIGTERM) }
        if !(await onDedicatedThread { child.waitUntilExit(timeout: 10) }) {
            child.signal(SIGKILL)
            _ = await onDedicatedThread { child.waitUntilExit(timeout: 10) }
        }
        process.withLock { $0 = nil }
    }

    /// Starts the broker again on the same port (without the retained messages it had: persistence is off).
    public func start() async throws {
        let child = try await Self.launch(folder)
        process.withLock { $0 = child }
        guard await Self.accepts(port: port, while: child) else {
            throw FixtureError(description: "mosquitto did not start again on \(port)")
        }
    }

    private static func launch(_ folder: String) async throws -> ChildProcess {
        let log = open(folder + "/mosquitto.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { if log >= 0 { close(log) } }
        let wrapper = "import os, signal, sys\n"
            + "signal.pthread_sigmask(signal.SIG_SETMASK, [])\n"
            + "signal.signal(signal.SIGPIPE, signal.SIG_DFL)\n"
            + "fd = os.open(sys.argv[1] + '/mosquitto.log', os.O_WRONLY | os.O_APPEND)\n"
            + "os.dup2(fd, 2)\n"
            + "os.execv('/usr/sbin/mosquitto', ['mosquitto', '-c', sys.argv[1] + '/mosquitto.conf'])\n"
        return try ChildProcess.spawn("/usr/bin/python3", ["-c", wrapper, folder])
    }

    /// Waits (at most 10 s) until the port accepts a TCP connection, or the broker has ended.
    private static func accepts(port: Int, while child: ChildProcess) async -> Bool {
        await eventually(timeout: 10) {
            guard child.isRunning else { return true }
            return Self.connects(port: port)
        } && child.isRunning
    }

    public static func connects(port: Int) -> Bool {
        guard let fd = LoopbackTCP.connect(port: port) else { return false }
        close(fd)
        return true
    }

    /// A loopback port nothing listens on now (bound and released; the broker binds it a moment later).
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 ? getsockname(fd, $0, &length) : -1
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A `mosquitto_sub` following topics, for a test to wait on what a broker delivers: the newest payload of each
/// topic, whether it came retained, and every message in order.
public final class MQTTWatcher: Sendable {
    public struct Message: Sendable, Hashable {
        public var topic: String
        public var retained: Bool
        public var payload: String
    }

    private let process: ChildProcess
    private let output = Pipe()
    private let received = Mutex<(all: [Message], partial: Data)>(([], Data()))
    private let ended = DispatchSemaphore(value: 0)

    /// Subscribes to `topics` on the broker at 127.0.0.1:`port`, with `arguments` added (credentials, TLS).
    public init(port: Int, topics: [String] = ["#"], arguments: [String] = []) async throws {
        let all = ["-h", "127.0.0.1", "-p", String(port), "-F", "%r %t %p", "-q", "1"]
            + topics.flatMap { ["-t", $0] } + arguments
        process = try await ChildProcess.launch("/usr/bin/mosquitto_sub", all, output: output)
        let handle = output.fileHandleForReading
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                received.withLock { state in
                    state.partial.append(chunk)
                    while let newline = state.partial.firstIndex(of: 0x0A) {
                        let line = String(decoding: state.partial[state.partial.startIndex..<newline], as: UTF8.self)
                        state.partial.removeSubrange(state.partial.startIndex...newline)
                        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                        guard parts.count >= 2 else { continue }
                        state.all.append(Message(
                            topic: String(parts[1]), retained: parts[0] == "1",
                            payload: parts.count > 2 ? String(parts[2]) : ""))
                    }
                }
            }
            ended.signal()
        }
        thread.start()
    }

    deinit {
        if process.isRunning { process.signal(SIGKILL) }
    }

    /// Every message so far, in order.
    public var messages: [Message] { received.withLock { $0.all } }

    /// The newest message of each topic so far.
    public var latest: [String: Message] {
        var latest: [String: Message] = [:]
        for message in messages { latest[message.topic] = message }
        return latest
    }

    /// The newest payload of `topic`, parsed as a JSON object.
    public func object(_ topic: String) -> [String: Any]? {
        guard let payload = latest[topic]?.payload, let data = payload.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// Waits (at most `timeout` seconds) until `condition` holds for what has arrived.
    @discardableResult
    public func wait(timeout: Double = 20, until condition: (MQTTWatcher) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { condition(self) }
    }

    public var isRunning: Bool { process.isRunning }

    /// Ends `mosquitto_sub` and waits for it.
    public func stop() async {
        if process.isRunning { process.signal(SIGTERM) }
        _ = await onDedicatedThread { [process] in process.waitUntilExit(timeout: 10) }
    }
}
