// breezed publishing to MQTT: the delivery latency from a place change (a `select` on the socket) to a subscriber
// of the location topic through a real mosquitto, and breezed's resident memory with MQTT on and off.
//
//   mqtt-bench [--changes N]
//
// Run in release mode (scripts/bench). Figures from one run on a shared machine; compare them with each other.
import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
let changes: Int = {
    guard let index = arguments.firstIndex(of: "--changes"), index + 1 < arguments.count,
        let value = Int(arguments[index + 1]), value > 0
    else { return 100 }
    return value
}()

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
let breezed = root + "/.build/release/breezed"

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// breezed with its files in a temporary folder, ready once READY=1 arrives.
func startDaemon(_ extra: [String]) throws -> (ChildProcess, String) {
    let folder = TemporaryPaths.make("mqtt-bench")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let notify = NotifySocket(folder: folder)
    let process = try ChildProcess.spawn(
        breezed,
        ["--socket", folder + "/s.sock", "--state-dir", folder + "/state", "--cache-dir", folder + "/cache",
         "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern", "--log-level", "warning"] + extra,
        environment: ["NOTIFY_SOCKET": notify.path])
    guard notify.waitSynchronously(for: "READY=1") != nil else { fatalError("breezed did not start") }
    return (process, folder + "/s.sock")
}

/// A socket client sending `select` and reading lines until its reply.
final class Control {
    let fd: Int32
    var buffer: [UInt8] = []
    var next = 1

    init(_ path: String) {
        guard let fd = UnixSocket.connect(to: path) else { fatalError("cannot connect to \(path)") }
        self.fd = fd
    }

    func select(_ query: String) {
        let id = next
        next += 1
        let line = Array("{\"command\":\"select\",\"query\":\"\(query)\",\"id\":\(id)}\n".utf8)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let text = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if text.contains("\"id\":\(id)") { return }
            }
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { fatalError("breezed closed the socket") }
            buffer += chunk[..<count]
        }
    }
}

/// A subscriber on a thread of its own, signalling each location message that names a new city.
final class Subscriber: @unchecked Sendable {
    // @unchecked: `arrivals` is behind its Mutex; the session is used only on the subscriber's own thread.
    let arrivals = Mutex<[(city: String, at: ContinuousClock.Instant)]>([])
    let arrived = DispatchSemaphore(value: 0)

    init(port: Int) {
        let ready = DispatchSemaphore(value: 0)
        Thread { [self] in
            do {
                let session = try MQTTSession(clientID: "mqtt-bench-\(getpid())")
                session.onMessage = { [self] message in
                    let now = ContinuousClock.now
                    let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
                    guard let city = object?["city"] as? String else { return }
                    arrivals.withLock { $0.append((city, now)) }
                    arrived.signal()
                }
                try session.connect(host: "127.0.0.1", port: port, keepalive: 60)
                var subscribed = false
                while true {
                    _ = try session.service(wakeFD: -1, timeout: 1)
                    if !subscribed, session.connack == 0 {
                        try session.subscribe("breeze/bench/location")
                        subscribed = true
                        ready.signal()
                    }
                }
            } catch {
                // The broker stopped at the end; before that, `wait` says which message did not come.
                return
            }
        }.start()
        guard ready.wait(timeout: .now() + 10) == .success else { fatalError("the subscriber did not connect") }
    }

    /// Waits for a message naming `city`; returns when it arrived.
    func wait(for city: String) -> ContinuousClock.Instant {
        while true {
            guard arrived.wait(timeout: .now() + 10) == .success else { fatalError("no message for \(city)") }
            if let hit = arrivals.withLock({ $0.last(where: { $0.city == city }) }) { return hit.at }
        }
    }
}

let broker = try await Mosquitto()
let (withMQTT, socket) = try startDaemon(["--mqtt", broker.url(), "--mqtt-node", "bench"])
let (withoutMQTT, plainSocket) = try startDaemon([])
let subscriber = Subscriber(port: broker.port)
let control = Control(socket)
let plainControl = Control(plainSocket)

// Two cities in turn; each change spaced past breezed's LOCATION pacing (at most four a second), so each is sent
// at once and the latency is the path's alone.
let cities = [("Zurich", "Zürich"), ("Geneva", "Geneva")]
var latencies: [Double] = []
for change in 0..<(changes + 4) {
    let (query, name) = cities[change % 2]
    let started = ContinuousClock.now
    control.select(query)
    let arrived = subscriber.wait(for: name)
    plainControl.select(query)
    if change >= 4 { latencies.append(milliseconds(arrived - started)) }
    try await Task.sleep(for: .milliseconds(300))
}
let sorted = latencies.sorted()
func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print(String(format: "place change to MQTT subscriber through mosquitto, %d changes: median %.2f ms, p99 %.2f ms, max %.2f ms",
             sorted.count, percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.last ?? .nan))

let rssWith = ProcessMemory.residentBytes(pid: withMQTT.processIdentifier)
let rssWithout = ProcessMemory.residentBytes(pid: withoutMQTT.processIdentifier)
print(String(format: "breezed RSS after %d place changes: %.1f MiB with MQTT, %.1f MiB without (+%.1f MiB)",
             changes + 4, Double(rssWith) / 1_048_576, Double(rssWithout) / 1_048_576,
             Double(rssWith - rssWithout) / 1_048_576))

for process in [withMQTT, withoutMQTT] {
    process.signal(SIGTERM)
    process.waitUntilExit()
}
await broker.stop()
exit(0)
