// breezed beside gpsd, in one run: memory, start-up, idle wake-ups, ingest cost, request round trips, breezectl per
// run, binary sizes. Medians over rounds; within a round both daemons run at once on the same receiver and clients.
//
//   lean-bench [--rounds N] [--idle-seconds S] [--fixes N] [--replay-epochs N] [--requests N] [--runs N]
//              [--starts N] [--breezed PATH] [--baseline PATH]
//
// Start to READY=1 is the median of 1 + --starts starts of each daemon a round.
//
// Round trips are measured four ways (`Placement`): where the scheduler puts client and server, both pinned to one
// processor, pinned to two, and pinned to two with neither processor let halt (`IdleSpinners`). Beside them, the
// floor: a thread that writes each line straight back.
//
// --baseline measures a second breezed (a build from before a change) beside the first, in the same phases.
//
// Run in release mode (scripts/bench). A shared machine is noisy: compare figures from one run.
import BreezeTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1])
    else { return fallback }
    return value
}
let rounds = option("--rounds", 3)
let idleSeconds = option("--idle-seconds", 30)
let fixes = option("--fixes", 1_000)
let replayEpochs = option("--replay-epochs", 3_600)
let requestCount = option("--requests", 2_000)
let runs = option("--runs", 20)
let startSamples = option("--starts", 5)

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
func path(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let staticFolder = root + "/.build/static/release"
// The breezed measured: the installed kind (Swift runtime linked in, `make`) when it is built, else the test build.
let breezedBinary = path("--breezed")
    ?? [staticFolder + "/breezed", root + "/.build/release/breezed"].first { FileManager.default.isExecutableFile(atPath: $0) }
    ?? ""
/// A second breezed measured beside the first in every phase (`--baseline PATH`: a build from before a change).
let contenders = [("breezed", breezedBinary)] + (path("--baseline").map { [("baseline", $0)] } ?? [])
let breezectlBuilds = [("dynamic", root + "/.build/release/breezectl"), ("static", staticFolder + "/breezectl")]
    .filter { FileManager.default.isExecutableFile(atPath: $0.1) }
guard GPSFake.isAvailable, contenders.allSatisfy({ FileManager.default.isExecutableFile(atPath: $0.1) }) else {
    print("lean-bench needs gpsd (scripts/bootstrap) and a release build of breezed")
    exit(1)
}
raiseDescriptorLimit(to: 8_192)

/// Every figure, by name and column, one value per round (or per run).
final class Figures: @unchecked Sendable {
    // @unchecked: `values` is touched under `lock` only.
    private let lock = NSLock()
    private var values: [String: [String: [Double]]] = [:]

    func record(_ name: String, _ column: String, _ value: Double) {
        lock.withLock { values[name, default: [:]][column, default: []].append(value) }
    }

    var all: [String: [String: [Double]]] { lock.withLock { values } }
}
let collected = Figures()
func record(_ name: String, _ column: String, _ value: Double) { collected.record(name, column, value) }

func folder(_ name: String) -> String {
    let path = NSTemporaryDirectory() + "lean-bench-\(getpid())-\(name)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func mib(_ kib: Int) -> Double { Double(kib) / 1024 }

/// Every process measured in a phase, by column.
typealias Processes = [(column: String, pid: Int32)]

/// Idle: context switches of every thread of each process over one window, per minute.
func idle(_ label: String, _ processes: Processes) {
    let windows = processes.map { ($0.column, SwitchWindow(pid: $0.pid)) }
    Thread.sleep(forTimeInterval: Double(idleSeconds))
    for (column, window) in windows {
        let measured = window.finish()
        record("idle wake-ups/min, \(label)", column, Double(measured.switches) * 60 / measured.seconds)
        record("idle CPU ms/min, \(label)", column, measured.cpu * 60_000 / measured.seconds)
        // Where they come from, by thread name (Dispatch names its threads after its queues, truncated).
        for (name, switches) in measured.byName where switches > 0 {
            record("idle wake-ups/min, \(label), by thread: \(name)", column, Double(switches) * 60 / measured.seconds)
        }
    }
}

/// Ingest: each process's CPU and context switches while the receiver sends `fixes` epochs 10 ms apart.
func ingest(_ label: String, _ motion: Receiver.Motion, receiver: Receiver, _ processes: Processes) {
    let windows = processes.map { ($0.column, SwitchWindow(pid: $0.pid)) }
    receiver.send(fixes, motion, interval: .milliseconds(10))
    // What was written last is read, parsed and passed on well within this.
    Thread.sleep(forTimeInterval: 0.3)
    let per = 1_000 / Double(fixes)
    for (column, window) in windows {
        let measured = window.finish()
        record("ingest CPU ms/1000 fixes, \(label)", column, measured.cpu * 1_000 * per)
        record("ingest switches/1000 fixes, \(label)", column, Double(measured.switches) * per)
        for (name, switches) in measured.byName where switches > 0 {
            record("ingest switches/1000 fixes, \(label), by thread: \(name)", column, Double(switches) * per)
        }
    }
}

/// The round trip of a server that does nothing but answer (`EchoServer`), kept in a column of its own.
let floorFigure = "round trip µs, floor (echo thread), 0 other clients"

/// Round trips of `version`, `lookup` and `search` on one connection, with `crowd` other clients connected.
func roundTrips(_ socket: String, pid: Int32, column: String, crowd crowdSize: Int) {
    let crowd = Crowd(crowdSize, connect: { UnixSocket.connect(to: socket) }, hello: nil, read: false)
    defer { crowd.close() }
    guard let fd = UnixSocket.connect(to: socket) else { fatalError("cannot connect to \(socket)") }
    let asker = Asker(fd: fd)
    asker.discard(for: 100)
    let suffix = "\(crowdSize) other clients"
    let requests: [(String, (Int) -> String)] = [
        ("version", { "{\"command\":\"version\",\"id\":\($0)}\n" }),
        ("lookup", { "{\"command\":\"lookup\",\"latitude\":46.948,\"longitude\":7.4474,\"id\":\($0)}\n" }),
        ("search", { "{\"command\":\"search\",\"query\":\"bern\",\"id\":\($0)}\n" }),
    ]
    for placement in Placement.available {
        placement.measure(server: pid) {
            for (name, request) in requests {
                record("round trip µs, \(name), \(suffix)\(placement.suffix)", column,
                       asker.medianRoundTrip(requestCount, request: request, marker: { "\"id\":\($0)" }))
            }
        }
    }
    if crowdSize > 0 { record("clients connected for the crowded round trips", column, Double(crowd.connected)) }
}

for round in 0..<rounds {
    print("round \(round + 1) of \(rounds)…")
    // 1. Without a receiver: start-up, memory after start, idle with no source, requests, breezectl.
    do {
        let work = folder("round\(round)")
        // Alternate the order of starting, so that none always meets a warmer page cache.
        var order = Array(0...contenders.count)
        if round % 2 == 1 { order.reverse() }
        var gpsd: GPSD?
        var daemons: [Int: Breezed] = [:]
        for which in order {
            if which == contenders.count {
                gpsd = try GPSD.start(device: nil, in: work)
            } else {
                daemons[which] = try Breezed.start(binary: contenders[which].1, gpsd: nil, in: work + "/breezed\(which)")
            }
        }
        guard let gpsd else { fatalError("unreachable") }
        let started = contenders.indices.map { (contenders[$0].0, daemons[$0]!) }
        for (column, breezed) in started {
            record("start to listening (gpsd) / READY=1 (breezed) ms", column, breezed.readyMilliseconds)
        }
        record("start to listening (gpsd) / READY=1 (breezed) ms", "gpsd", gpsd.startMilliseconds)
        Thread.sleep(forTimeInterval: 0.5)
        let processes = started.map { ($0.0, $0.1.pid) } + [("gpsd", gpsd.pid)]
        for (column, pid) in processes {
            record("RSS after start MiB", column, mib(Probe.residentKiB(pid)))
            record("RSS after start, anonymous MiB", column, mib(Probe.field("RssAnon:", in: Probe.text("/proc/\(pid)/status"))))
        }

        idle("no source", processes)

        // More starts than the one each contender needs for the round, alternating: the round's own start comes
        // right after the last round's teardown (processes ending, their memory freed), and one sample a round
        // showed that moment as much as the start itself.
        for sample in 0..<startSamples {
            for which in sample % 2 == 0 ? order.reversed() : order {
                if which == contenders.count {
                    // A folder of its own: the round's gpsd keeps its control socket.
                    let extraFolder = folder("round\(round)/gpsd-start\(sample)")
                    let extra = try GPSD.start(device: nil, in: extraFolder)
                    record("start to listening (gpsd) / READY=1 (breezed) ms", "gpsd", extra.startMilliseconds)
                    extra.stop()
                } else {
                    let extra = try Breezed.start(
                        binary: contenders[which].1, gpsd: nil, in: work + "/start\(sample)-\(which)")
                    record("start to listening (gpsd) / READY=1 (breezed) ms", contenders[which].0, extra.readyMilliseconds)
                    extra.stop()
                }
            }
        }

        for crowdSize in [0, 1_000] {
            for (column, breezed) in (round % 2 == 0 ? started : started.reversed()) {
                roundTrips(breezed.socket, pid: breezed.pid, column: column, crowd: crowdSize)
            }
        }
        if let tcp = connectTCP(gpsd.port) {
            // gpsd's nearest request: ?VERSION; (it has no lookup or search, and takes few clients).
            let asker = Asker(fd: tcp)
            asker.discard(for: 100)
            for placement in Placement.available {
                placement.measure(server: gpsd.pid) {
                    record("round trip µs, version, 0 other clients\(placement.suffix)", "gpsd",
                           asker.medianRoundTrip(requestCount, request: { _ in "?VERSION;\n" }, marker: { _ in "" }))
                }
            }
        }

        // The floor under every round trip above, in the same round: a thread that writes each line straight back.
        // Its threads are this process's, started by this thread: they take its processors as they are when made.
        for placement in Placement.available {
            if let processors = placement.processors { Placement.pinAsker(to: processors.server) }
            let echo = EchoServer(path: work + "/echo.sock")
            if let fd = UnixSocket.connect(to: echo.path) {
                if let processors = placement.processors { Placement.pinAsker(to: processors.client) }
                let asker = Asker(fd: fd)
                placement.keepingAwake {
                    record(floorFigure + placement.suffix, "floor",
                           asker.medianRoundTrip(requestCount, request: { "{\"command\":\"version\",\"id\":\($0)}\n" },
                                                 marker: { "\"id\":\($0)" }))
                }
            }
            Placement.pinAsker(to: Placement.all)
            echo.stop()
        }

        // breezectl per run, alternating the builds present (dynamic: the test build; static: `make`); in gpsd's
        // column, gpsd's own client asked for its version (gpspipe -V), the floor of a small C program.
        for run in 0..<runs {
            let gpspipe = ShortRun.run("/usr/bin/gpspipe", ["-V"])
            let gpspipePeak = ShortRun.peakResidentKiB("/usr/bin/gpspipe", ["-V"]).map(mib) ?? .nan
            for (label, _) in breezectlBuilds {
                record("breezectl --version wall ms (\(label))", "gpsd", gpspipe.milliseconds)
                record("breezectl --version max RSS MiB (\(label))", "gpsd", gpspipePeak)
            }
            for (label, path) in (run % 2 == 0 ? breezectlBuilds : breezectlBuilds.reversed()) {
                for (command, extra) in [("--version", ["--version"]), ("lookup", ["lookup", "46.948", "7.4474"])] {
                    let arguments = ["--socket", started[0].1.socket] + extra
                    let result = ShortRun.run(path, arguments)
                    guard result.status == 0 else { fatalError("breezectl \(command) (\(label)) failed: \(result.status)") }
                    record("breezectl \(command) wall ms (\(label))", "breezed", result.milliseconds)
                    record("breezectl \(command) max RSS MiB (\(label))", "breezed",
                           ShortRun.peakResidentKiB(path, arguments).map(mib) ?? .nan)
                }
            }
        }
        started.forEach { $0.1.stop() }
        gpsd.stop()
        try? FileManager.default.removeItem(atPath: work)
    }

    // 2. A receiver on a pseudo-terminal, gpsd reading it, each breezed reading gpsd.
    do {
        let work = folder("receiver\(round)")
        let receiver = Receiver()
        let gpsd = try GPSD.start(device: receiver.device, in: work)
        var started: [(String, Breezed)] = []
        for (index, (column, binary)) in contenders.enumerated() {
            let breezed = try Breezed.start(binary: binary, gpsd: gpsd.port, in: work + "/breezed\(index)")
            started.append((column, breezed))
        }
        for (_, breezed) in started {
            guard breezed.waitConnected(to: gpsd.port) else { fatalError("breezed did not connect to gpsd") }
        }
        // Idle means nothing left to happen: gpsd has greeted every breezed (seconds after its port first accepts a
        // connection), and each breezed's fix timeout after connecting has passed (a silent receiver has no fix).
        guard gpsd.waitServing() else { fatalError("gpsd did not greet a client within 10 s") }
        for (_, breezed) in started {
            guard breezed.waitNoFix(seconds: 60) else { fatalError("breezed did not report the missing fix within 60 s") }
        }
        // The socket server trims its memory once it has been quiet for 2 s after a client (the one that waited).
        Thread.sleep(forTimeInterval: 2.5)
        let processes = started.map { ($0.0, $0.1.pid) } + [("gpsd", gpsd.pid)]
        idle("gpsd connected and silent", processes)

        ingest("stationary", .stationary, receiver: receiver, processes)
        ingest("moving", .moving, receiver: receiver, processes)

        // An hour of a moving receiver at 1 Hz, replayed 500 times as fast, with 100 watchers on each daemon.
        let crowds = started.map { breezed in
            Crowd(100, connect: { UnixSocket.connect(to: breezed.1.socket) }, hello: "{\"command\":\"watch\"}\n", read: true)
        } + [Crowd(100, connect: { connectTCP(gpsd.port) }, hello: "?WATCH={\"enable\":true,\"json\":true};\n", read: true)]
        receiver.send(replayEpochs, .moving, interval: .milliseconds(2))
        Thread.sleep(forTimeInterval: 0.5)
        for (column, pid) in processes {
            record("RSS after an hour-equivalent replay, 100 watchers MiB", column, mib(Probe.residentKiB(pid)))
            record("RSS after the replay, anonymous MiB", column,
                   mib(Probe.field("RssAnon:", in: Probe.text("/proc/\(pid)/status"))))
        }
        crowds.forEach { $0.close() }
        started.forEach { $0.1.stop() }
        gpsd.stop()
        try? FileManager.default.removeItem(atPath: work)
    }
}

// Sizes of the binaries on disk.
func mebibytes(_ path: String) -> Double? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int).map { Double($0) / 1024 / 1024 }
}
var sizes: [(String, Double)] = []
for (label, path) in [("breezed (dynamic)", root + "/.build/release/breezed"),
                      ("breezectl (dynamic)", root + "/.build/release/breezectl"),
                      ("breezed (static, make)", staticFolder + "/breezed"),
                      ("breezectl (static, make)", staticFolder + "/breezectl"),
                      ("gpsd", "/usr/sbin/gpsd"), ("gpspipe", "/usr/bin/gpspipe")] {
    if let size = mebibytes(path) { sizes.append((label, size)) }
}

// The table: one line per figure, each column's median.
let targets: [String: (Double, String)] = [
    "RSS after start MiB": (12, "≤ 12"),
    "RSS after an hour-equivalent replay, 100 watchers MiB": (16, "≤ 16"),
    "start to listening (gpsd) / READY=1 (breezed) ms": (10, "≤ 10"),
    "idle wake-ups/min, no source": (0, "0"),
    "idle wake-ups/min, gpsd connected and silent": (0, "0"),
    "breezectl --version wall ms": (3, "≤ 3"),
    "breezectl --version max RSS MiB": (8, "≤ 8"),
    "breezectl lookup max RSS MiB": (8, "≤ 8"),
]
let columns = contenders.map(\.0) + ["gpsd"]
func row(_ name: String, _ cells: [String], _ target: String, _ verdict: String) -> String {
    name.padding(toLength: 76, withPad: " ", startingAt: 0)
        + cells.map { $0.padding(toLength: 11, withPad: " ", startingAt: 0) }.joined()
        + target.padding(toLength: 9, withPad: " ", startingAt: 0) + verdict
}
func number(_ value: Double) -> String {
    value.isNaN ? "–" : abs(value) >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
}
let figures = collected.all
print("")
print("medians of \(rounds) rounds (breezectl: \(runs) runs a round; starts: \(1 + startSamples) a round); idle windows "
      + "\(idleSeconds) s; \(fixes) fixes per ingest; \(requestCount) requests per round trip figure")
for (column, binary) in contenders { print("\(column): \(binary)") }
print(row("", columns, "target", "breezed"))
for name in figures.keys.sorted() {
    let medians = columns.map { figures[name]?[$0].map(median) ?? .nan }
    var target = ""
    var verdict = ""
    for (prefix, (limit, text)) in targets where name.hasPrefix(prefix) && !name.contains("by thread") {
        target = text
        verdict = medians[0] <= limit ? "met" : "missed by " + number(medians[0] - limit)
    }
    if name.hasPrefix("ingest CPU") {
        target = "≤ gpsd"
        verdict = medians[0] <= medians.last! ? "met" : String(format: "%.1f× gpsd", medians[0] / medians.last!)
    }
    guard !name.hasPrefix(floorFigure) else { continue }
    print(row(name, medians.map(number), target, verdict))
}
// Round trips are judged on one processor with 1,000 clients connected, as a ratio to `version` in the same run.
let judged = "1000 other clients, one processor"
for (command, limit) in [("lookup", 1.3), ("search", 1.7)] {
    let ratios = columns.map { column -> Double in
        guard let answer = figures["round trip µs, \(command), \(judged)"]?[column].map(median),
            let version = figures["round trip µs, version, \(judged)"]?[column].map(median)
        else { return .nan }
        return answer / version
    }
    let verdict = ratios[0] <= limit ? "met" : "missed by " + number(ratios[0] - limit)
    print(row("round trip, \(command) / version, \(judged)", ratios.map(number), "≤ \(limit)×", verdict))
}
for name in figures.keys.sorted() where name.hasPrefix(floorFigure) {
    print(row(name, [number(figures[name]?["floor"].map(median) ?? .nan)], "", ""))
}
print("")
print("binary sizes (MiB): " + sizes.map { "\($0.0) \(String(format: "%.1f", $0.1))" }.joined(separator: ", "))
