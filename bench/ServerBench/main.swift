import BreezeCore
import BreezeProtocol
import BreezeServer
import BreezeTestSupport
import CEpoll
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
/// It stands in for 1,000 subscriber processes, so it must cost little per socket, as a real subscriber blocked in
/// its own read would: epoll reports only the ready descriptors (poll would scan all 1,000 on every round), and
/// edge-triggered, so a descriptor that was read is not polled again; buffers live in an array indexed by
/// descriptor, and a line that arrives whole (the usual case) is handed on uncopied.
final class Reader {
    let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
    var events = [epoll_event](repeating: epoll_event(), count: 1_024)
    var buffers: [[UInt8]] = Array(repeating: [], count: 65_536)
    var chunk = [UInt8](repeating: 0, count: 65_536)

    func add(_ fd: Int32) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLET.rawValue
        event.data.fd = fd
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else { fatalError("epoll_ctl: \(errno)") }
    }

    func pump(timeoutMilliseconds: Int32, line: (Int32, ArraySlice<UInt8>) -> Void) {
        let ready = epoll_wait(epoll, &events, Int32(events.count), timeoutMilliseconds)
        guard ready > 0 else { return }
        for index in 0..<Int(ready) { drain(events[index].data.fd, line: line) }
    }

    /// Edge-triggered, so a descriptor is read until a read comes back short: what arrives later raises a new event.
    private func drain(_ fd: Int32, line: (Int32, ArraySlice<UInt8>) -> Void) {
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { return }
            if buffers[Int(fd)].isEmpty, chunk[count - 1] == 0x0A,
                chunk[0..<(count - 1)].firstIndex(of: 0x0A) == nil
            {
                line(fd, chunk[0..<(count - 1)])
            } else {
                buffers[Int(fd)] += chunk[0..<count]
                while let newline = buffers[Int(fd)].firstIndex(of: 0x0A) {
                    line(fd, buffers[Int(fd)][..<newline])
                    buffers[Int(fd)].removeFirst(newline + 1)
                }
            }
            if count < chunk.count { return }
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
let server = try SocketServer(listener: listener, configuration: configuration) { _, _ in .now([]) }
server.start()

// Memory: resident size before and after 1,000 clients connect and are greeted.
let before = ProcessMemory.residentBytes()
var fds: [Int32] = []
let reader = Reader()
for _ in 0..<clientCount {
    fds.append(connectClient(path))
    reader.add(fds.last!)
}
var greeted = 0
while greeted < clientCount { reader.pump(timeoutMilliseconds: 1_000) { _, _ in greeted += 1 } }
let after = ProcessMemory.residentBytes()
print(
    String(
        format: "memory: %.1f KiB resident per connected idle client (%d clients, %.2f MB in all; "
            + "both ends live in this process, so this bounds the server's share from above)",
        Double(after - before) / 1024 / Double(clientCount), clientCount, Double(after - before) / 1e6))

// Latency: every client watches LOCATION.
let watch = Array("{\"command\":\"watch\",\"classes\":[\"LOCATION\"]}\n".utf8)
for fd in fds { _ = watch.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } }
var acknowledged = 0
while acknowledged < clientCount { reader.pump(timeoutMilliseconds: 1_000) { _, _ in acknowledged += 1 } }

let update = JSONValue.object([
    ("class", .string("LOCATION")), ("name", .string("Adelboden, Switzerland")), ("n", .number(0)),
    ("latitude", .number(46.4983)), ("longitude", .number(7.5674)), ("source", .string("gpsd")),
])

/// One round: `send` on a thread of its own (as the daemon publishes from its own threads while subscribers read
/// in their processes, so reading starts while later sockets are still being written), the reader collecting the
/// `sockets` lines. Latency runs from the moment `send` begins (waking the sending thread is the benchmark's cost,
/// not the server's) until the reader has the line. Returns (latencies, send duration) in ms.
@MainActor func round(_ sockets: Int, on sender: DispatchQueue, _ send: @escaping @Sendable () -> Void)
    -> (latencies: [Double], send: Double)
{
    let began = Mutex<(start: UInt64, duration: Double)>((0, 0))
    var arrivals: [UInt64] = []
    arrivals.reserveCapacity(sockets)
    sender.async {
        let start = nanoseconds()
        began.withLock { $0.start = start }
        send()
        let duration = Double(nanoseconds() - start) / 1e6
        began.withLock { $0.duration = duration }
    }
    while arrivals.count < sockets {
        reader.pump(timeoutMilliseconds: 1_000) { _, _ in arrivals.append(nanoseconds()) }
    }
    sender.sync {}
    let (start, duration) = began.withLock { $0 }
    return (arrivals.map { Double($0 - start) / 1e6 }, duration)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

// The floor: the same reader, the same line, a bare loop of send() over 1,000 connected socket pairs. What the
// kernel and this machine cost before any server code runs; measured in the same run, so the two compare.
let line = Array((update.encoded() + "\n").utf8)
var pairs: [(Int32, Int32)] = []
for _ in 0..<clientCount {
    var ends: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { fatalError("socketpair: \(errno)") }
    pairs.append((ends[0], ends[1]))
    reader.add(ends[1])
}
let senders = pairs.map(\.0)
// Rounds alternate between the two, so both see the same machine: it is shared, and its speed drifts.
let sender = DispatchQueue(label: "sender")
struct Results {
    var latencies: [Double] = []
    var sends: [Double] = []
    mutating func add(_ round: (latencies: [Double], send: Double)) {
        latencies += round.latencies
        sends.append(round.send)
    }
    var sorted: Results { Results(latencies: latencies.sorted(), sends: sends.sorted()) }
}
var floor = Results()
var served = Results()
for _ in 0..<updates {
    let bare = round(clientCount, on: sender) {
        line.withUnsafeBytes { bytes in
            for fd in senders { _ = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
    }
    floor.add(bare)
    served.add(round(clientCount, on: sender) { server.publish(update) })
}
floor = floor.sorted
served = served.sorted

print(
    String(
        format: "publish to %d idle subscribers (encode once, write to every socket): median %.3f ms, "
            + "p99 %.3f ms; a bare send() loop: median %.3f ms", clientCount, percentile(served.sends, 0.5),
        percentile(served.sends, 0.99), percentile(floor.sends, 0.5)))
print(
    String(
        format: "delivery to %d subscribers, %d updates: median %.3f ms, p99 %.3f ms, max %.3f ms "
            + "(from the publish call until the reader, reading the sockets as they become ready, has the line)",
        clientCount, updates, percentile(served.latencies, 0.5), percentile(served.latencies, 0.99),
        served.latencies.last!))
print(
    String(
        format: "the floor, a bare send() loop read by the same reader: median %.3f ms, p99 %.3f ms; "
            + "server / floor: median %.2f, p99 %.2f", percentile(floor.latencies, 0.5),
        percentile(floor.latencies, 0.99),
        percentile(served.latencies, 0.5) / percentile(floor.latencies, 0.5),
        percentile(served.latencies, 0.99) / percentile(floor.latencies, 0.99)))
// A request's round trip on one client while the other 999 are connected and idle: what the event loop costs per
// request with a full house (it polls every client on each turn).
let request = Array("{\"command\":\"version\"}\n".utf8)
var roundTrips: [Double] = []
for _ in 0..<500 {
    let start = nanoseconds()
    _ = request.withUnsafeBytes { send(fds[0], $0.baseAddress, $0.count, 0) }
    var answered = false
    while !answered { reader.pump(timeoutMilliseconds: 1_000) { fd, _ in if fd == fds[0] { answered = true } } }
    roundTrips.append(Double(nanoseconds() - start) / 1e6)
}
roundTrips.sort()
print(
    String(
        format: "request round trip with %d clients connected: median %.3f ms, p99 %.3f ms", clientCount,
        percentile(roundTrips, 0.5), percentile(roundTrips, 0.99)))

server.stop()
fds.forEach { close($0) }
pairs.forEach {
    close($0.0)
    close($0.1)
}
