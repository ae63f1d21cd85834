import BreezeTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for gpsd on a loopback TCP port that sends whatever lines a test gives it, so that tests can say what
/// a real gpsd never would. It greets each client with gpsd 3.22's VERSION line, as gpsd does.
final class FakeGPSD: Sendable {
    static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#

    let port: Int
    private let listener: Int32
    private let client = Mutex<Int32>(-1)

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 4) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listening else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            while true {
                let fd = accept(listener, nil, nil)
                if fd < 0 {
                    if errno == EINTR { continue }
                    return  // the listener was shut down
                }
                _ = Self.write(fd, Self.version + "\n")
                let old = client.withLock { current in
                    defer { current = fd }
                    return current
                }
                if old >= 0 { close(old) }
            }
        }
        thread.name = "fake-gpsd"
        thread.start()
    }

    /// Waits (up to `timeout` seconds) for a client to connect.
    func waitForClient(timeout: Double) async -> Bool {
        let deadline = TestTime.deadline(after: timeout)
        while ContinuousClock.now < deadline {
            if client.withLock({ $0 }) >= 0 { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Sends lines (each with a newline) to the connected client; false when there is none or it went away.
    @discardableResult
    func send(_ lines: [String]) -> Bool {
        let fd = client.withLock { $0 }
        return fd >= 0 && Self.write(fd, lines.map { $0 + "\n" }.joined())
    }

    /// Sends raw bytes to the connected client.
    @discardableResult
    func send(bytes: [UInt8]) -> Bool {
        let fd = client.withLock { $0 }
        return fd >= 0 && bytes.withUnsafeBytes { Self.write(fd, $0) }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        let fd = client.withLock { current in
            defer { current = -1 }
            return current
        }
        if fd >= 0 { close(fd) }
    }

    private static func write(_ fd: Int32, _ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { write(fd, $0) }
    }

    private static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// A TPV line as gpsd 3.22 writes it.
    static func tpv(
        _ latitude: Double, _ longitude: Double, time: String?, mode: Int = 3, extra: String = ""
    ) -> String {
        let timeField = time.map { #","time":"\#($0)""# } ?? ""
        return #"{"class":"TPV","device":"/dev/ttyACM0","status":2,"mode":\#(mode)\#(timeField),"#
            + #""ept":0.005,"lat":\#(latitude),"lon":\#(longitude),"altHAE":600.0,"altMSL":545.4,"alt":545.4,"#
            + #""epv":1.6,"track":31.4,"speed":0.03,"eph":1.1\#(extra)}"#
    }
}
