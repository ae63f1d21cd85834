import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What /proc says about a process, read from outside it (reading never wakes the process).
enum Probe {
    struct Counts {
        var switches = 0
        var nanoseconds = 0

        static func - (a: Counts, b: Counts) -> Counts {
            Counts(switches: a.switches - b.switches, nanoseconds: a.nanoseconds - b.nanoseconds)
        }

        static func + (a: Counts, b: Counts) -> Counts {
            Counts(switches: a.switches + b.switches, nanoseconds: a.nanoseconds + b.nanoseconds)
        }
    }

    static func text(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A `Key:   123 kB` field of a status file (KiB for sizes).
    static func field(_ key: String, in status: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        return line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) } ?? 0
    }

    /// Resident memory in KiB (VmRSS).
    static func residentKiB(_ pid: Int32) -> Int {
        field("VmRSS:", in: text("/proc/\(pid)/status"))
    }

    /// Context switches (voluntary and not) and nanoseconds on a CPU (schedstat) of each living thread, by id.
    static func threads(_ pid: Int32) -> [Int32: Counts] {
        guard let directory = opendir("/proc/\(pid)/task") else { return [:] }
        defer { closedir(directory) }
        var tids: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let tid = Int32(name) { tids.append(tid) }
        }
        var counts: [Int32: Counts] = [:]
        for tid in tids {
            let status = text("/proc/\(pid)/task/\(tid)/status")
            guard !status.isEmpty else { continue }
            let runtime = text("/proc/\(pid)/task/\(tid)/schedstat").split(separator: " ").first.flatMap { Int($0) } ?? 0
            counts[tid] = Counts(
                switches: field("voluntary_ctxt_switches:", in: status) + field("nonvoluntary_ctxt_switches:", in: status),
                nanoseconds: runtime)
        }
        return counts
    }
}

/// Counts a process's context switches over a window, over every thread: threads are sampled every 20 ms, so a
/// thread that starts during the window counts whole, and one that ends counts up to its last sample plus one (its
/// end). Reading /proc does not wake the process.
final class SwitchWindow: @unchecked Sendable {
    // @unchecked: `threads`, `gone` and `stopRequested` are touched under `lock` only.
    private let pid: Int32
    private let lock = NSLock()
    /// Each living thread's counts when the window began (zero for a thread born in it) and at its last sample.
    private var threads: [Int32: (base: Probe.Counts, latest: Probe.Counts)] = [:]
    private var gone = Probe.Counts()
    /// Each thread's name (its comm), and the switches of threads gone, by name: where the wake-ups come from.
    private var names: [Int32: String] = [:]
    private var goneByName: [String: Int] = [:]
    private var stopRequested = false
    private let done = DispatchSemaphore(value: 0)
    private let startTime = ContinuousClock.now

    init(pid: Int32) {
        self.pid = pid
        threads = Probe.threads(pid).mapValues { (base: $0, latest: $0) }
        Thread.detachNewThread { [self] in
            while true {
                usleep(20_000)
                let stop = lock.withLock { stopRequested }
                sample()
                if stop { break }
            }
            done.signal()
        }
    }

    private func sample() {
        let now = Probe.threads(pid)
        lock.withLock {
            for (tid, counts) in threads where now[tid] == nil {
                gone = gone + (counts.latest - counts.base) + Probe.Counts(switches: 1)
                goneByName[names[tid] ?? "?", default: 0] += counts.latest.switches - counts.base.switches + 1
                threads[tid] = nil
            }
            for (tid, count) in now {
                threads[tid] = (base: threads[tid]?.base ?? Probe.Counts(), latest: count)
                if names[tid] == nil { names[tid] = Probe.text("/proc/\(pid)/task/\(tid)/comm").trimmingCharacters(in: .newlines) }
            }
        }
    }

    /// Ends the window: context switches, CPU seconds (all threads), seconds elapsed, and the switches by thread name.
    func finish() -> (switches: Int, cpu: Double, seconds: Double, byName: [String: Int]) {
        lock.withLock { stopRequested = true }
        done.wait()
        let (total, byName) = lock.withLock {
            var byName = goneByName
            for (tid, counts) in threads { byName[names[tid] ?? "?", default: 0] += counts.latest.switches - counts.base.switches }
            return (threads.values.reduce(gone) { $0 + ($1.latest - $1.base) }, byName)
        }
        return (total.switches, Double(total.nanoseconds) / 1e9, elapsedMilliseconds(ContinuousClock.now - startTime) / 1000,
                byName)
    }
}

/// One run of a short-lived program: wall time from spawn to reaping, or its peak resident memory.
struct ShortRun {
    // The wall time is taken here, from spawning to reaping; the peak memory through GNU time (see below).
    var milliseconds: Double
    var status: Int32

    /// The peak resident memory of one run, as GNU time reports it (KiB), or nil.
    ///
    /// Not from this process's own wait4: a child spawned from here shares this process's memory until it executes
    /// the program (vfork), and the kernel counts that memory's peak into the child's. GNU time forks from a small
    /// process, so what it reports is the program's own peak (plus about 1 MiB: /bin/true measures 1 MiB).
    static func peakResidentKiB(_ path: String, _ arguments: [String]) -> Int? {
        let report = NSTemporaryDirectory() + "lean-bench-\(getpid())-time"
        defer { unlink(report) }
        guard run("/usr/bin/time", ["-f", "%M", "-o", report, path] + arguments).status == 0 else { return nil }
        return Int(Probe.text(report).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) -> ShortRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = merged.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let started = ContinuousClock.now
        guard posix_spawn(&pid, path, &actions, nil, argv, envp) == 0 else {
            return ShortRun(milliseconds: .nan, status: -1)
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        return ShortRun(
            milliseconds: elapsedMilliseconds(ContinuousClock.now - started), status: status)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func elapsedMilliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.filter { !$0.isNaN }.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
