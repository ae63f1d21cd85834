import Foundation

/// This process's resident memory, for benchmarks.
public enum ProcessMemory {
    /// Resident set size in bytes (from /proc/self/statm), or 0 where that cannot be read.
    public static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
