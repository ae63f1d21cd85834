// breezed as a service would run: start-up to READY=1, resident memory over a long replay, CPU while idle.
//
//   daemon-bench [--replay-minutes N] [--idle-seconds N]
//
// Run in release mode (scripts/bench). Figures from one run on a shared machine; compare them with each other.
import BreezeTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Double) -> Double {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Double(arguments[index + 1])
    else { return fallback }
    return value
}
let replayMinutes = option("--replay-minutes", 4)
let idleSeconds = option("--idle-seconds", 60)

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
let breezed = root + "/.build/release/breezed"
let drive = root + "/data/drives/adelboden-frutigen.nmea"

func folder() -> String {
    let path = NSTemporaryDirectory() + "breeze-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Starts breezed directly (no wrapper, so start-up is breezed's alone) with NOTIFY_SOCKET set.
func start(_ extra: [String], notify: NotifySocket, in folder: String) throws -> (ChildProcess, ContinuousClock.Instant) {
    let arguments = ["--socket", folder + "/s.sock", "--state-dir", folder + "/state", "--cache-dir", folder + "/cache",
                     "--no-geoclue", "--log-level", "warning"] + extra
    let started = ContinuousClock.now
    let process = try ChildProcess.spawn(breezed, arguments, environment: ["NOTIFY_SOCKET": notify.path])
    return (process, started)
}

func stop(_ process: ChildProcess) {
    process.signal(SIGKILL)
    process.waitUntilExit()
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

// 1. Start-up to READY=1 (index mapped, state loaded, socket listening), ten starts.
var startups: [Double] = []
for _ in 0..<10 {
    let work = folder()
    let notify = NotifySocket(folder: work)
    let (process, started) = try start(["--no-gpsd", "--offline", "--fallback-city", "Bern"], notify: notify, in: work)
    if let ready = notify.waitSynchronously(for: "READY=1") { startups.append(milliseconds(ready - started)) }
    stop(process)
}
startups.sort()
print(String(format: "start-up to READY=1, 10 starts: median %.1f ms, max %.1f ms (target ≤ 250 ms, goal 100 ms)",
             startups[startups.count / 2], startups.last ?? .nan))

// 2. Idle CPU: a laptop without a receiver (gpsd configured but not running: breezed retries with backoff), and
//    with gpsd off; data offline so no network is needed.
for (label, extra) in [("gpsd configured, not running", ["--gpsd", "127.0.0.1:\(GPSFake.freePort())"]),
                       ("no location source", ["--no-gpsd"])] {
    let work = folder()
    let notify = NotifySocket(folder: work)
    let (process, _) = try start(extra + ["--offline", "--fallback-city", "Bern"], notify: notify, in: work)
    _ = notify.waitSynchronously(for: "READY=1")
    try await Task.sleep(for: .seconds(2))
    let before = ProcessMemory.cpuSeconds(pid: process.processIdentifier) ?? .nan
    try await Task.sleep(for: .seconds(idleSeconds))
    let after = ProcessMemory.cpuSeconds(pid: process.processIdentifier) ?? .nan
    print(String(format: "CPU while idle for %.0f s (%@): %.2f s (target ≤ 0.1 s)", idleSeconds, label, after - before))
    stop(process)
}

// 3. Memory over a long replay: the shipped drive looped fast (100 epochs a second; each loop crosses from
//    Adelboden to Frutigen and jumps back, so places and data fetches change all the time), data from the loopback
//    fixture, 100 watchers connected.
let port = GPSFake.freePort()
let gpsd = try await GPSFake(log: drive, port: port, once: false, interval: 0.005)
let fixture = try await WebFixture()
let work = folder()
let notify = NotifySocket(folder: work)
let (process, _) = try start(["--gpsd", "127.0.0.1:\(port)", "--api-base", fixture.baseURL.absoluteString],
                             notify: notify, in: work)
_ = notify.waitSynchronously(for: "READY=1")
var watchers: [Int32] = []
for _ in 0..<100 {
    guard let fd = UnixSocket.connect(to: work + "/s.sock") else { continue }
    let request = Array("{\"command\":\"watch\"}\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    watchers.append(fd)
}
// The watchers read and discard in the background, as status bars would.
let watcherDescriptors = watchers
let drain = Thread {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        var entries = watcherDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&entries, nfds_t(entries.count), 1000) >= 0 else { return }
        for entry in entries where entry.revents != 0 {
            if buffer.withUnsafeMutableBytes({ recv(entry.fd, $0.baseAddress, $0.count, 0) }) <= 0 { return }
        }
    }
}
drain.start()
var samples: [(Double, Int)] = []
var anonymous: [Int] = []
var fileBacked: [Int] = []
let replayStart = ContinuousClock.now
let total = replayMinutes * 60
while milliseconds(ContinuousClock.now - replayStart) / 1000 < total {
    try await Task.sleep(for: .seconds(5))
    let elapsed = milliseconds(ContinuousClock.now - replayStart) / 1000
    samples.append((elapsed, ProcessMemory.residentBytes(pid: process.processIdentifier)))
    let split = ProcessMemory.residentSplit(pid: process.processIdentifier)
    anonymous.append(split.anonymous)
    fileBacked.append(split.file)
}
let cpu = ProcessMemory.cpuSeconds(pid: process.processIdentifier) ?? .nan
stop(process)
await gpsd.stop()
fixture.stop()
let half = samples.count / 2
let mib = { (bytes: Int) in Double(bytes) / 1_048_576 }
let firstHalfMax = samples[..<half].map(\.1).max() ?? 0
let secondHalf = samples[half...].map(\.1)
let epochs = Int(total * 100)
print(String(format: "replay of %.0f min at ~100 epochs/s (~%d epochs, %.1f h at 1 Hz), 100 watchers:", replayMinutes,
             epochs, Double(epochs) / 3600))
print(String(format: "  resident memory: first half max %.1f MiB; second half from %.1f to %.1f MiB (max %.1f MiB); "
             + "target ≤ 40 MiB, goal 20 MiB, no growth in the second half", mib(firstHalfMax),
             mib(secondHalf.first ?? 0), mib(secondHalf.last ?? 0), mib(secondHalf.max() ?? 0)))
print(String(format: "  of which anonymous (breezed's own heap and stacks): first half max %.1f MiB; second half from %.1f "
             + "to %.1f MiB (max %.1f MiB)", mib(anonymous[..<half].max() ?? 0), mib(anonymous[half...].first ?? 0),
             mib(anonymous.last ?? 0), mib(anonymous[half...].max() ?? 0)))
print(String(format: "  and file-backed (Swift runtime, Foundation, libcurl code; the places index): %.1f to %.1f MiB",
             mib(fileBacked.first ?? 0), mib(fileBacked.last ?? 0)))
print(String(format: "  CPU over the replay: %.1f s", cpu))
print("  samples (s: total/anonymous MiB): " + zip(samples, anonymous).map {
    String(format: "%.0f:%.1f/%.1f", $0.0.0, mib($0.0.1), mib($0.1))
}.joined(separator: " "))
