import BreezeProtocol
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking connection to breezed's socket: breezectl sends a request and reads lines until its reply.
final class ControlConnection {
    private let fd: Int32
    private var framer = LineFramer(maximumLength: 1 << 20)
    private var pending: [String] = []
    private var nextID = 1

    /// Connects to `path`; throws `unreachable` with a hint.
    init(path: String) throws(CLIError) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CLIError(.unreachable, "cannot create a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw CLIError(.usage, "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in bytes.enumerated() { buffer[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw CLIError(.unreachable, "cannot reach breezed at \(path): \(reason)\n"
                + "hint: is breezed running ('systemctl status breezed')? Another socket: --socket PATH or BREEZE_SOCKET.")
        }
    }

    deinit {
        close(fd)
    }

    /// Sends a request with a fresh id; returns the id.
    @discardableResult
    func send(_ command: String, _ arguments: [(String, JSONValue)] = []) throws(CLIError) -> Int {
        let id = nextID
        nextID += 1
        let request = JSONValue.object([("command", .string(command))] + arguments + [("id", .number(Double(id)))])
        var bytes = Array(request.encoded().utf8)
        bytes.append(10)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError(.unreachable, "breezed closed the connection")
            }
            sent += count
        }
        return id
    }

    /// The next object from the daemon; nil when it closes the connection.
    func next() throws(CLIError) -> JSONValue? {
        while pending.isEmpty {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError(.unreachable, "lost the connection to breezed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return nil }
            for event in framer.push(buffer[0..<count]) {
                if case .line(let line) = event { pending.append(line) }
            }
        }
        let line = pending.removeFirst()
        do throws(ProtocolError) {
            return try JSONValue.parse(line)
        } catch {
            throw CLIError(.failure, "breezed sent a line that is not JSON: \(error.message)")
        }
    }

    /// Reads until the reply to `id`; an `ERROR` reply throws with its code mapped to an exit status.
    func reply(to id: Int) throws(CLIError) -> JSONValue {
        while let message = try next() {
            guard message["id"] == .number(Double(id)) else { continue }
            if message["class"]?.stringValue == "ERROR" { throw CLIError(daemonError: message) }
            return message
        }
        throw CLIError(.unreachable, "breezed closed the connection before answering")
    }

    /// Every reply to `id`, until the reply to `end` (sent after it) arrives.
    func replies(to id: Int, until end: Int) throws(CLIError) -> [JSONValue] {
        var found: [JSONValue] = []
        while let message = try next() {
            if message["id"] == .number(Double(end)) { return found }
            guard message["id"] == .number(Double(id)) else { continue }
            if message["class"]?.stringValue == "ERROR" { throw CLIError(daemonError: message) }
            found.append(message)
        }
        throw CLIError(.unreachable, "breezed closed the connection before answering")
    }
}
