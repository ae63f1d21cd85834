import BreezeProtocol
import BreezeServer
import BreezeTestSupport
import Foundation
import Synchronization

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
///
/// It stands in for 1,000 subscriber processes, so it must cost little per socket: buffers in an array indexed by
/// descriptor, and a line that arrives whole (the usual case) is handed on without being copied into a buffer.
final class Reader {
    var buffers: [[UInt8]] = Array(repeating: [], count: 65_536)
    var chunk = [UInt8](repeating: 0, count: 65_536)

    func pump(_ fds: [Int32], timeoutMilliseconds: Int32, line: (Int32, ArraySlice<UInt8>) -> Void) {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&entries, nfds_t(entries.count), timeoutMilliseconds) > 0 else { return }
        for entry in entries where entry.revents & Int16(POLLIN) != 0 {
            let fd = entry.fd
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { continue }
            if buffers[Int(fd)].isEmpty, chunk[count - 1] == 0x0A,
                chunk[0..<(count - 1)].firstIndex(of: 0x0A) == nil
            {
                line(fd, chunk[0..<(count - 1)])
                continue
            }
            buffers[Int(fd)] += chunk[0..<count]
            while let newline = buffers[Int(fd)].firstIndex(of: 0x0A) {
                line(fd, buffers[Int(fd)][..<newline])
                buffers[Int(fd)].removeFirst(newline + 1)
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
// The update is published from a thread of its own, as the daemon publishes from its own threads while subscribers
// read in their processes: the reader here starts reading while the server is still writing to later sockets.
let publisher = DispatchQueue(label: "publisher")
let publishDuration = Mutex<Double>(0)
for n in 0..<updates {
    let sent = nanoseconds()
    publisher.async {
        server.publish(.object([
            ("class", .string("LOCATION")), ("name", .string("Adelboden, Switzerland")), ("n", .number(Double(n))),
            ("latitude", .number(46.4983)), ("longitude", .number(7.5674)), ("source", .string("gpsd")),
        ]))
        publishDuration.withLock { $0 = Double(nanoseconds() - sent) / 1e6 }
    }
    var received = 0
    while received < clientCount {
        reader.pump(fds, timeoutMilliseconds: 1_000) { _, _ in
            received += 1
            latencies.append(Double(nanoseconds() - sent) / 1e6)
        }
    }
    publisher.sync {}
    publishTimes.append(publishDuration.withLock { $0 })
}
publishTimes.sort()
print(String(format: "publish to %d idle subscribers (encode once, write to every socket): median %.3f ms, "
    + "p99 %.3f ms", clientCount, publishTimes[updates / 2], publishTimes[updates * 99 / 100]))
latencies.sort()
let sorted = latencies
func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print(String(format: "delivery to %d subscribers, %d updates: median %.3f ms, p99 %.3f ms, max %.3f ms "
    + "(from the publish call, on its own thread, until the reader, reading the sockets as they become ready, "
    + "has the line)",
    clientCount, updates, percentile(0.5), percentile(0.99), sorted.last!))
server.stop()
fds.forEach { close($0) }
