// breezed under hostile load, all at once: local clients misusing the socket, a gpsd flooding garbage, web APIs
// failing every fetch. Prints resident memory during and after the load, `breezectl status` latency, and what each
// hostile scenario did, with a PASS/MISS line per target. Asserts nothing: a missed target is a figure, not an error.
//
//   soak-bench [--seconds N] [--only NAME,…]
//
// --seconds: the load's length (default 300), then 30 s of watching memory settle. --only: run just the named
// scenarios (pipeline, crowd, flood, half-lines, malformed, storm, gpsd, web), to find which one a figure comes from.
// If breezed's memory passes a safety cap (4 GiB: the machine is shared), the load stops and breezed is terminated.
//
// Needs the release build of breezed and breezectl (scripts/bench builds them). Everything on loopback; every
// child is killed and the temporary folder removed at the end, also on failure.
import BreezeTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// The load, in one place.
let pipeliningClients = 4
let crowdClients = 700  // within the daemon's 1,024
let crowdSearchesPerClient = 300
let floodSearches = 200_000
let floodEvery = 10.0
let halfLineClients = 50
let stormRefusals = 100
let stormCap = 1_200
let stormEvery = 15.0
let statusEvery = 0.25
let refreshEvery = 3.0
let settleSeconds = 30
let safetyCapMiB = 4_096.0

// The targets.
let peakTargetMiB = 64.0
let settledTargetMiB = 40.0
let statusP99TargetMs = 50.0

let arguments = CommandLine.arguments
let seconds: Double = {
    guard let index = arguments.firstIndex(of: "--seconds"), index + 1 < arguments.count,
        let value = Double(arguments[index + 1]), value > 0, value <= 3_600
    else { return 300 }
    return value
}()

let scenarios: Set<String> = {
    let all: Set = ["pipeline", "crowd", "flood", "half-lines", "malformed", "storm", "gpsd", "web"]
    guard let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count else { return all }
    return all.intersection(arguments[index + 1].split(separator: ",").map(String.init))
}()

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
let breezed = root + "/.build/release/breezed"
let breezectl = root + "/.build/release/breezectl"

func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }

/// VmRSS of `pid` in bytes, from /proc/PID/status; nil once the process is gone.
func residentBytes(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return nil }
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
    return kilobytes * 1_024
}

/// Resident memory of `pid` by kind, from /proc/PID/status: anonymous (heap, stacks) and file-backed (mapped code
/// and data) bytes.
func residentParts(_ pid: Int32) -> (anonymous: Int, file: Int)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    func kibibytes(_ key: String) -> Int? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
    guard let anonymous = kibibytes("RssAnon"), let file = kibibytes("RssFile") else { return nil }
    return (anonymous * 1_024, file * 1_024)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Runs breezectl as a user would; its wall time in ms and exit status (-1: killed after 10 s).
func breezectlRun(_ subcommand: [String], socket: String) -> (ms: Double, status: Int32) {
    let started = ContinuousClock.now
    guard let child = try? ChildProcess.spawn(breezectl, subcommand, environment: ["BREEZE_SOCKET": socket]) else {
        return (0, -2)
    }
    let limit = started + .seconds(10)
    while child.isRunning, ContinuousClock.now < limit { usleep(250) }
    let elapsed = milliseconds(ContinuousClock.now - started)
    if child.isRunning {
        child.signal(SIGKILL)
        child.waitUntilExit()
        return (elapsed, -1)
    }
    return (elapsed, child.terminationReason == .exit ? child.terminationStatus : 128 + child.terminationStatus)
}

/// breezed's standard error, drained so it never blocks, counted, and its last lines kept for the report.
final class LogTail: Sendable {
    private let state = Mutex<(lines: Int, last: [String])>((0, []))

    func drain(_ pipe: Pipe) -> DispatchSemaphore {
        let handle = pipe.fileHandleForReading
        return worker("breezed stderr") { [self] in
            var pending = Data()
            while let data = try? handle.read(upToCount: 65_536), !data.isEmpty {
                pending += data
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    state.withLock {
                        $0.lines += 1
                        $0.last.append(String(line.prefix(300)))
                        if $0.last.count > 12 { $0.last.removeFirst() }
                    }
                }
            }
        }
    }

    var summary: (lines: Int, last: [String]) { state.withLock { $0 } }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func soak() async throws {
    guard FileManager.default.isExecutableFile(atPath: breezed), FileManager.default.isExecutableFile(atPath: breezectl)
    else {
        throw SoakError("build breezed and breezectl first: swift build -c release --product breezed; "
            + "swift build -c release --product breezectl")
    }
    signal(SIGPIPE, SIG_IGN)
    var limit = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < 8_192 {
        limit.rlim_cur = min(8_192, limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    let work = NSTemporaryDirectory() + "breeze-soak-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    let socket = work + "/s.sock"
    // The shortest refreshes and the largest budget breezed.conf allows, so that breezed keeps fetching.
    try """
        [data]
        air_refresh=1m
        pollen_refresh=1m
        climate_refresh=1m
        requests_per_hour=4000
        """.write(toFile: work + "/breezed.conf", atomically: true, encoding: .utf8)

    let fixture = try await WebFixture()
    defer { fixture.stop() }
    let gpsd = try HostileGPSD()
    let notify = NotifySocket(folder: work)
    let errors = Pipe()
    let daemon = try ChildProcess.spawn(
        breezed,
        ["--config", work + "/breezed.conf", "--socket", socket, "--state-dir", work + "/state", "--cache-dir",
         work + "/cache", "--gpsd", "127.0.0.1:\(gpsd.port)", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString,
         "--log-level", "warning"],
        environment: ["NOTIFY_SOCKET": notify.path], errorOutput: errors)
    defer {
        if daemon.isRunning {
            daemon.signal(SIGKILL)
            daemon.waitUntilExit()
        }
    }
    let log = LogTail()
    let logDrained = log.drain(errors)
    guard notify.waitSynchronously(for: "READY=1") != nil else { throw SoakError("breezed did not become ready in 20 s") }
    let pid = daemon.processIdentifier
    let baseline = residentBytes(pid) ?? 0
    let cpuBefore = ProcessMemory.cpuSeconds(pid: pid) ?? .nan

    let run = SoakRun(seconds: seconds, socketPath: socket)
    defer { run.stop() }
    let tallies = (pipeline: Tally(), crowd: Tally(), flood: Tally(), halfLines: Tally(), malformed: Tally(), storm: Tally(),
                   gpsd: Tally(), web: Tally())
    var done: [DispatchSemaphore] = []
    if scenarios.contains("pipeline") {
        for n in 0..<pipeliningClients {
            done.append(worker("pipeline \(n)", unprivileged: true) { HostileClients.pipeline(run, tallies.pipeline, seed: n * 1_000) })
        }
    }
    if scenarios.contains("crowd") {
        done.append(worker("crowd", unprivileged: true) {
            HostileClients.crowd(run, tallies.crowd, clients: crowdClients, perClient: crowdSearchesPerClient)
        })
    }
    if scenarios.contains("flood") {
        done.append(worker("flood", unprivileged: true) { HostileClients.flood(run, tallies.flood, count: floodSearches, every: floodEvery) })
    }
    if scenarios.contains("half-lines") {
        done.append(worker("half lines", unprivileged: true) { HostileClients.halfLines(run, tallies.halfLines, clients: halfLineClients) })
    }
    if scenarios.contains("malformed") {
        done.append(worker("malformed", unprivileged: true) { HostileClients.malformedLines(run, tallies.malformed) })
    }
    if scenarios.contains("storm") {
        done.append(worker("storm", unprivileged: true) {
            HostileClients.storm(run, tallies.storm, refusals: stormRefusals, cap: stormCap, every: stormEvery)
        })
    }
    // Left out, the gpsd accepts breezed and sends nothing; the web fixture answers normally.
    if scenarios.contains("gpsd") { done.append(worker("gpsd") { gpsd.serve(run, tallies.gpsd) }) }
    let web = Task { if scenarios.contains("web") { await HostileWeb.rotate(fixture, run, tallies.web) } }

    // The trusted side: `breezectl status` every 250 ms, timed, and `breezectl refresh` every 3 s.
    let statusRuns = Mutex<[(ms: Double, status: Int32)]>([])
    done.append(worker("status") {
        var next = ContinuousClock.now
        while !run.isOver {
            let result = breezectlRun(["status"], socket: socket)
            statusRuns.withLock { $0.append(result) }
            next += .milliseconds(Int(statusEvery * 1000))
            if next > .now { usleep(UInt32(milliseconds(next - .now) * 1000)) }
        }
    })
    // The same question in process (connect, `status`, every reply read), timed: the daemon's share of the
    // latency, without a process start.
    let probeRuns = Mutex<[Double]>([])
    done.append(worker("probe") {
        var next = ContinuousClock.now
        while !run.isOver {
            let started = ContinuousClock.now
            if let fd = LoopbackSocket.connect(run, tally: Tally()) {
                var buffer: [UInt8] = []
                _ = LoopbackSocket.send(fd, Array("{\"command\":\"status\"}\n{\"command\":\"version\",\"id\":2}\n".utf8), wait: 5)
                var answered = false
                while let line = LoopbackSocket.readLine(fd, &buffer, wait: 5) {
                    if line.contains("\"id\":2") { answered = true; break }
                }
                close(fd)
                if answered { probeRuns.withLock { $0.append(milliseconds(ContinuousClock.now - started)) } }
            }
            next += .milliseconds(Int(statusEvery * 1000))
            if next > .now { usleep(UInt32(milliseconds(next - .now) * 1000)) }
        }
    })
    let refreshes = Tally()
    done.append(worker("refresh") {
        while !run.isOver {
            let result = breezectlRun(["refresh"], socket: socket)
            refreshes.add(result.status == 0 ? "ok" : "exit \(result.status)")
            run.pause(refreshEvery)
        }
    })

    // Memory every second while the load runs.
    var loadSamples: [Int] = []
    var capped: String?
    let loadStart = ContinuousClock.now
    while !run.isOver {
        guard let resident = residentBytes(pid) else { break }
        loadSamples.append(resident)
        if mebibytes(resident) > safetyCapMiB {
            capped = String(format: "during the load, %.0f s in", milliseconds(ContinuousClock.now - loadStart) / 1000)
            break
        }
        try await Task.sleep(for: .seconds(1))
    }
    let endOfLoad = residentBytes(pid)
    let loadSeconds = milliseconds(ContinuousClock.now - loadStart) / 1000
    run.stop()
    let cpuDuring = (ProcessMemory.cpuSeconds(pid: pid) ?? .nan) - cpuBefore
    let runningAtEndOfLoad = daemon.isRunning

    // Stop all load: every scenario notices within a few seconds (its waits are bounded) and closes its sockets.
    var stuck = 0
    for semaphore in done where semaphore.wait(timeout: .now() + 15) == .timedOut { stuck += 1 }
    await web.value

    // Memory as the daemon settles, from the moment the load stopped.
    var afterSamples: [(Double, Int?)] = []
    let stoppedAt = ContinuousClock.now
    for second in 1...settleSeconds where capped == nil {
        let until = stoppedAt + .seconds(second)
        if until > .now { try await Task.sleep(until: until, clock: .continuous) }
        let resident = residentBytes(pid)
        afterSamples.append((milliseconds(ContinuousClock.now - stoppedAt) / 1000, resident))
        if let resident, mebibytes(resident) > safetyCapMiB {
            capped = String(format: "%.0f s after the load stopped", milliseconds(ContinuousClock.now - stoppedAt) / 1000)
        }
    }
    let runningAtEnd = daemon.isRunning
    let settledParts = residentParts(pid)
    let statusAfterLoad = breezectlRun(["status"], socket: socket)

    // SIGTERM, and how breezed ends.
    var ending = "was still running 10 s after SIGTERM (then killed)"
    daemon.terminate()
    let termLimit = ContinuousClock.now + .seconds(10)
    while daemon.isRunning, ContinuousClock.now < termLimit { usleep(10_000) }
    if !daemon.isRunning {
        ending = daemon.terminationReason == .exit
            ? "exited with status \(daemon.terminationStatus)" : "ended by signal \(daemon.terminationStatus)"
    }
    if daemon.isRunning { daemon.signal(SIGKILL) }
    daemon.waitUntilExit()
    _ = logDrained.wait(timeout: .now() + 5)

    // The report.
    if let capped { print("SAFETY CAP: breezed passed \(Int(safetyCapMiB)) MiB \(capped); load stopped, breezed terminated") }
    if scenarios.count < 8 { print("only: " + scenarios.sorted().joined(separator: ", ")) }
    print(hostileClientsAreUnprivileged
        ? "hostile clients connect as nobody (untrusted); breezectl runs as root"
        : "hostile clients and breezectl run as the same user (the bench is not root): all trusted")
    print(String(format: "soak of breezed (pid %d) for %.0f s of hostile load, then %d s without; baseline RSS %.1f MiB",
                 pid, loadSeconds, settleSeconds, mebibytes(baseline)))
    let peak = loadSamples.max() ?? 0
    print(String(format: "RSS during the load: peak %.1f MiB; at the end of the load %@", mebibytes(peak),
                 endOfLoad.map { String(format: "%.1f MiB", mebibytes($0)) } ?? "(breezed gone)"))
    let stride = max(1, loadSamples.count / 30)
    print("  every \(stride) s: " + Swift.stride(from: 0, to: loadSamples.count, by: stride).map {
        String(format: "%.1f", mebibytes(loadSamples[$0]))
    }.joined(separator: " "))
    let after = { (second: Int) -> String in
        guard second <= afterSamples.count, let bytes = afterSamples[second - 1].1 else { return "(breezed gone)" }
        return String(format: "%.1f MiB", mebibytes(bytes))
    }
    print("RSS after the load stopped: 5 s \(after(5)), 10 s \(after(10)), 20 s \(after(20)), 30 s \(after(30))")
    let settled = afterSamples.first { ($0.1 ?? .max) <= Int(settledTargetMiB * 1_048_576) }
    if let parts = settledParts {
        print(String(format: "  at %d s: anonymous %.1f MiB, file-backed %.1f MiB (runtime, libraries, the places index)",
                     settleSeconds, mebibytes(parts.anonymous), mebibytes(parts.file)))
    }
    print("  first at or below \(Int(settledTargetMiB)) MiB: "
        + (settled.map { String(format: "%.0f s after", $0.0) } ?? "not within \(settleSeconds) s"))
    print(String(format: "CPU used by breezed during the load: %.1f s (%.0f%% of one core)", cpuDuring,
                 cpuDuring / max(loadSeconds, 1) * 100))

    let runs = statusRuns.withLock { $0 }
    let times = runs.map(\.ms).sorted()
    let failed = runs.filter { $0.status != 0 }
    var failures: [Int32: Int] = [:]
    for run in failed { failures[run.status, default: 0] += 1 }
    print(String(format: "breezectl status, %d runs every %.0f ms: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; "
                 + "%d failed%@", runs.count, statusEvery * 1000, percentile(times, 0.5), percentile(times, 0.9),
                 percentile(times, 0.99), times.last ?? .nan, failed.count,
                 failed.isEmpty ? "" : " (" + failures.sorted { $0.key < $1.key }.map {
                     $0.key == -1 ? "\($0.value) killed after 10 s" : "\($0.value) exit \($0.key)" }.joined(separator: ", ") + ")"))
    let succeeded = runs.filter { $0.status == 0 }.map(\.ms).sorted()
    print(String(format: "  of which successful: p50 %.1f ms, p99 %.1f ms; after the load: %.1f ms, exit %d",
                 percentile(succeeded, 0.5), percentile(succeeded, 0.99), statusAfterLoad.ms, statusAfterLoad.status))
    let probes = probeRuns.withLock { $0 }.sorted()
    print(String(format: "status in process (connect, status, replies read), %d runs: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, "
                 + "max %.2f ms", probes.count, percentile(probes, 0.5), percentile(probes, 0.9), percentile(probes, 0.99),
                 probes.last ?? .nan))
    print("breezectl refresh (trusted) every \(Int(refreshEvery)) s: " + refreshes.summary(["ok"]))

    print("hostile clients:")
    print("  \(pipeliningClients) pipelining, never reading: " + tallies.pipeline.summary(["requests sent", "connections"]))
    print("  \(crowdClients) clients × \(crowdSearchesPerClient) searches written, never reading, then closing, round "
        + "after round: "
        + tallies.crowd.summary(["rounds", "connections", "searches sent"]))
    print("  one client sending up to \(floodSearches) searches every \(Int(floodEvery)) s: "
        + tallies.flood.summary(["connections", "searches sent"]))
    print("  \(halfLineClients) clients sending half a line: " + tallies.halfLines.summary(["half lines sent"]))
    print("  malformed lines (\(HostileClients.malformed.count) kinds, in turn): " + tallies.malformed.summary(["lines sent"]))
    print("  connect storms past the limit every \(Int(stormEvery)) s: " + tallies.storm.summary(["storms", "accepted"]))
    print("hostile gpsd (127.0.0.1:\(gpsd.port), \(HostileGPSD.linesPerSecond) lines/s aimed): " + tallies.gpsd.summary(
        ["connections", "?WATCH accepted", "good TPVs sent"]))
    print("hostile web fixture (faults re-armed every 2 s): " + tallies.web.summary(["re-arms", "faults served"]))
    print("breezed: " + (runningAtEndOfLoad ? "running at the end of the load" : "NOT running at the end of the load")
        + ", " + (runningAtEnd ? "running \(settleSeconds) s later" : "NOT running \(settleSeconds) s later")
        + "; after SIGTERM it \(ending)")
    let tail = log.summary
    print("breezed wrote \(tail.lines) log lines (level warning); the last:")
    for line in tail.last { print("  " + line) }
    if stuck > 0 { print("(\(stuck) scenario threads did not stop within 15 s of the end of the load)") }

    let peakMiB = mebibytes(peak)
    print(String(format: "%@ RSS ≤ %.0f MiB throughout the load (peak %.1f MiB)", peakMiB <= peakTargetMiB ? "PASS" : "MISS",
                 peakTargetMiB, peakMiB))
    print("\(settled != nil ? "PASS" : "MISS") RSS back to ≤ \(Int(settledTargetMiB)) MiB within \(settleSeconds) s "
        + "after the load (\(after(settleSeconds)) at \(settleSeconds) s)")
    let p99 = percentile(times, 0.99)
    print(String(format: "%@ breezectl status p99 ≤ %.0f ms (%.1f ms; %d of %d failed)",
                 p99 <= statusP99TargetMs && failed.isEmpty ? "PASS" : "MISS", statusP99TargetMs, p99, failed.count, runs.count))
}

do {
    try await soak()
} catch {
    FileHandle.standardError.write(Data("soak-bench: \(error)\n".utf8))
    exit(1)
}
