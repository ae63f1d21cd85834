import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A gpsd on loopback that speaks just enough of its protocol (VERSION on connect, `?WATCH` accepted, DEVICES and
/// WATCH back) and then floods TPV reports: positions jumping between far-apart cities, mixed with garbage, non-JSON,
/// mode 99, numbers out of range and times going backwards.
final class HostileGPSD: Sendable {
    let port: Int
    private let listener: Int32

    /// Lines a second it aims for; it sends slower if breezed reads slower.
    static let linesPerSecond = 5_000
    /// Of each cycle, the first second jumps between cities on every fix; the rest stays at one city (with jitter),
    /// so that the place holds long enough for breezed to fetch its data.
    static let cycleSeconds = 6.0

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw SoakError("hostile gpsd: cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
    }

    deinit { close(listener) }

    /// Accepts breezed (again whenever it reconnects) and floods it until the run is over.
    func serve(_ run: SoakRun, _ tally: Tally) {
        while !run.isOver {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) > 0 else { continue }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            tally.add("connections")
            flood(fd, run, tally)
            close(fd)
        }
    }

    static let cities: [(name: String, latitude: Double, longitude: Double)] = [
        ("Zurich", 47.36667, 8.55), ("Sydney", -33.86785, 151.20732), ("New York", 40.71427, -74.00597),
        ("Tokyo", 35.6895, 139.69171), ("Bern", 46.94809, 7.44744), ("Paris", 48.85341, 2.3488),
        ("Reykjavik", 64.13548, -21.89541), ("Cape Town", -33.92584, 18.42322),
    ]

    private func flood(_ fd: Int32, _ run: SoakRun, _ tally: Tally) {
        let version = "{\"class\":\"VERSION\",\"release\":\"3.25\",\"rev\":\"3.25\",\"proto_major\":3,\"proto_minor\":15}\n"
        guard write(fd, Array(version.utf8), run, tally) else { return }
        // libgps sends `?WATCH={...};`, with no newline.
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while !run.isOver, String(decoding: received, as: UTF8.self).range(of: "?WATCH") == nil {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += chunk[..<count]
        }
        guard !run.isOver else { return }
        tally.add("?WATCH accepted")
        let device = "/dev/ttyHOSTILE"
        let answer = "{\"class\":\"DEVICES\",\"devices\":[{\"class\":\"DEVICE\",\"path\":\"\(device)\",\"activated\":"
            + "\"2026-01-01T00:00:00.000Z\",\"native\":0,\"bps\":9600}]}\n"
            + "{\"class\":\"WATCH\",\"enable\":true,\"json\":true,\"nmea\":false,\"raw\":0,\"scaled\":false}\n"
        guard write(fd, Array(answer.utf8), run, tally) else { return }

        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let started = ContinuousClock.now
        let batch = Self.linesPerSecond / 50  // one batch every 20 ms
        var sequence = 0
        var held = 0
        while !run.isOver {
            let tick = ContinuousClock.now
            let elapsed = Double((tick - started).components.seconds)
            let cycle = Int(elapsed / Self.cycleSeconds)
            let jumping = elapsed.truncatingRemainder(dividingBy: Self.cycleSeconds) < 1
            if !jumping { held = cycle % Self.cities.count }
            let now = Date().timeIntervalSince1970
            let times = (now: formatter.string(from: Date(timeIntervalSince1970: now)),
                         past: formatter.string(from: Date(timeIntervalSince1970: now - 86_400 * Double(1 + sequence % 1_000))))
            var text = ""
            for _ in 0..<batch {
                sequence += 1
                let (line, kind) = Self.line(sequence, device: device, city: jumping ? sequence % Self.cities.count : held, times: times)
                text += line
                tally.add(kind)
            }
            guard write(fd, Array(text.utf8), run, tally) else { return }
            // Whatever breezed writes (a later ?WATCH) is read and dropped, so its writes never block.
            var sink = [UInt8](repeating: 0, count: 4_096)
            while sink.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
            let next = tick + .milliseconds(20)
            if next > ContinuousClock.now { usleep(UInt32((next - ContinuousClock.now).components.attoseconds / 1_000_000_000_000)) }
        }
    }

    /// The `sequence`th line of the flood and what kind of line it is. Nine in ten are good TPVs.
    ///
    /// - Parameter times: the time now and a time in the past, as gpsd writes them.
    static func line(_ sequence: Int, device: String, city: Int, times: (now: String, past: String)) -> (String, String) {
        let place = cities[city]
        let jitter = Double(sequence % 97) * 0.00001
        func tpv(_ members: String) -> String { "{\"class\":\"TPV\",\"device\":\"\(device)\",\(members)}\n" }
        guard sequence % 10 == 0 else {
            return (tpv("\"mode\":3,\"time\":\"\(times.now)\",\"lat\":\(place.latitude + jitter),\"lon\":\(place.longitude - jitter),"
                + "\"alt\":540.1,\"epx\":4.2,\"epy\":5.1,\"speed\":0.3,\"track\":90.0"), "good TPVs sent")
        }
        switch (sequence / 10) % 12 {
        case 0: return ("this is not JSON at all\n", "garbage lines sent")
        case 1: return (tpv("\"mode\":99,\"time\":\"\(times.now)\",\"lat\":\(place.latitude),\"lon\":\(place.longitude)"), "mode 99 TPVs sent")
        case 2: return (tpv("\"mode\":3,\"time\":\"\(times.past)\",\"lat\":\(place.latitude),"
                + "\"lon\":\(place.longitude)"), "backwards-time TPVs sent")
        case 3: return (tpv("\"mode\":3,\"time\":\"\(times.now)\",\"lat\":1e19,\"lon\":-1e19,\"epx\":1e308"), "out-of-range TPVs sent")
        case 4: return (tpv("\"mode\":3,\"time\":\"\(times.now)\",\"lat\":\"north\",\"lon\":[1,2]"), "wrong-type TPVs sent")
        case 5: return ("{\"class\":\"TPV\",\"device\":\"\(device)\",\"mode\":3,\"lat\":4\n", "cut-off TPVs sent")
        case 6: return (tpv("\"mode\":3,\"time\":\"9999-99-99T99:99:99Z\",\"lat\":\(place.latitude),\"lon\":\(place.longitude)"),
                        "bad-time TPVs sent")
        case 7: return ("{\"class\":\"TPV\",\"device\":\"\(String(repeating: "A", count: 9_000))\"}\n", "over-long lines sent")
        case 8: return (String(decoding: [0xFF, 0xFE, 0x7B, 0x22, 0xC3, 0x28, 0x0A], as: UTF8.self), "invalid UTF-8 lines sent")
        case 9: return (tpv("\"mode\":2,\"time\":\"\(times.now)\",\"lat\":91.5,\"lon\":181.0"), "beyond ±90/±180 TPVs sent")
        case 10: return ("{\"class\":\"SKY\",\"device\":\"\(device)\",\"satellites\":[" + String(repeating: "{\"PRN\":1e19,\"used\":true},", count: 60)
                + "{\"PRN\":-1}]}\n", "hostile SKY lines sent")
        default: return (String(repeating: "[", count: 2_000) + "\n", "deep-nesting lines sent")
        }
    }

    /// Writes all of `bytes`, waiting at most 2 s for room at a time; false once breezed has gone.
    private func write(_ fd: Int32, _ bytes: [UInt8], _ run: SoakRun, _ tally: Tally) -> Bool {
        var offset = 0
        while offset < bytes.count {
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&entry, 1, 2_000) > 0 else {
                tally.add("2 s waits for breezed to read")
                if run.isOver { return false }
                continue
            }
            let count = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                tally.add("connections closed by breezed")
                return false
            }
            offset += count
        }
        return true
    }
}

struct SoakError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
