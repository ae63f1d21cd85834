import Foundation

/// This process's resident memory, for benchmarks.
public enum ProcessMemory {
    /// Resident set size in bytes (from /proc/self/statm), or 0 where that cannot be read.
    public static func residentBytes(pid: Int32? = nil) -> Int {
        let path = pid.map { "/proc/\($0)/statm" } ?? "/proc/self/statm"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// User plus system CPU seconds a process has used (from /proc/PID/stat), or nil.
    public static func cpuSeconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory of a process split as /proc/PID/status gives it: anonymous (its own heap and stacks) and
    /// file-backed (mapped code of the Swift runtime and libraries, and mapped data files, shared and reclaimable).
    public static func residentSplit(pid: Int32) -> (anonymous: Int, file: Int) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
        func kilobytes(_ key: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "0") ?? 0
        }
        return (kilobytes("RssAnon:") * 1024, kilobytes("RssFile:") * 1024)
    }
}
