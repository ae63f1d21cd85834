import BreezeProtocol
import BreezeServer
import BreezeTestSupport
import Foundation

// Measures the socket server: delivery latency of an update to 1,000 subscribers, and memory per connected client.
// Run in release mode: swift run -c release server-bench. Prints numbers; asserts nothing.

func nanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

func connectClient(_ path: String) -> Int32 {
    guard let fd = UnixSocket.connect(to: path) else { fatalError("cannot connect to \(path)") }
    return fd
}

/// Reads whatever is waiting on each ready descriptor and hands complete lines to `line`.
final class Reader {
    var buffers: [Int32: [UInt8]] = [:]

    func pump(_ fds: [Int32], timeoutMilliseconds: Int32, line: (Int32, [UInt8]) -> Void) {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&entries, nfds_t(entries.count), timeoutMilliseconds) > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        for entry in entries where entry.revents & Int16(POLLIN) != 0 {
            let count = chunk.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { continue }
            buffers[entry.fd, default: []] += chunk[0..<count]
            while let newline = buffers[entry.fd]!.firstIndex(of: 0x0A) {
                line(entry.fd, Array(buffers[entry.fd]![..<newline]))
                buffers[entry.fd]!.removeFirst(newline + 1)
            }
        }
    }
}

let clientCount = 1_000
let updates = 200
SocketServer.raiseDescriptorLimit(atLeast: 4_096)
let path = NSTemporaryDirectory() + "breeze-server-bench-\(getpid()).sock"
let listener = try UnixListener(path: path)
var configuration = SocketServer.Configuration()
configuration.maximumClients = clientCount + 10
let server = SocketServer(listener: listener, configuration: configuration) { _, _ in [] }
server.start()

// Memory: resident size before and after 1,000 clients connect and are greeted.
let before = ProcessMemory.residentBytes()
var fds: [Int32] = []
for _ in 0..<clientCount { fds.append(connectClient(path)) }
let reader = Reader()
var greeted = 0
while greeted < clientCount { reader.pump(fds, timeoutMilliseconds: 1_000) { _, _ in greeted += 1 } }
let after = ProcessMemory.residentBytes()
print(String(format: "memory: %.1f KiB resident per connected idle client (%d clients, %.2f MB in all; "
    + "both ends live in this process, so this bounds the server's share from above)",
    Double(after - before) / 1024 / Double(clientCount), clientCount, Double(after - before) / 1e6))

// Latency: every client watches LOCATION; each update carries its publish time.
let watch = Array("{\"command\":\"watch\",\"classes\":[\"LOCATION\"]}\n".utf8)
for fd in fds { _ = watch.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } }
var acknowledged = 0
while acknowledged < clientCount { reader.pump(fds, timeoutMilliseconds: 1_000) { _, _ in acknowledged += 1 } }

var latencies: [Double] = []
var publishTimes: [Double] = []
latencies.reserveCapacity(clientCount * updates)
for n in 0..<updates {
    let sent = nanoseconds()
    server.publish(.object([
        ("class", .string("LOCATION")), ("name", .string("Adelboden, Switzerland")), ("n", .number(Double(n))),
        ("latitude", .number(46.4983)), ("longitude", .number(7.5674)), ("source", .string("gpsd")),
    ]))
    publishTimes.append(Double(nanoseconds() - sent) / 1e6)
    var received = 0
    while received < clientCount {
        reader.pump(fds, timeoutMilliseconds: 1_000) { _, _ in
            received += 1
            latencies.append(Double(nanoseconds() - sent) / 1e6)
        }
    }
}
publishTimes.sort()
print(String(format: "publish to %d idle subscribers (encode once, write to every socket): median %.3f ms, "
    + "p99 %.3f ms", clientCount, publishTimes[updates / 2], publishTimes[updates * 99 / 100]))
latencies.sort()
let sorted = latencies
func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print(String(format: "delivery to %d subscribers, %d updates: median %.3f ms, p99 %.3f ms, max %.3f ms "
    + "(from the publish call until this one reader, reading the 1,000 sockets in turn after it, has the line)",
    clientCount, updates, percentile(0.5), percentile(0.99), sorted.last!))
server.stop()
fds.forEach { close($0) }
