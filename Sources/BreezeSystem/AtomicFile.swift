#if canImport(Glibc)
    import Glibc
#endif

/// Replaces files so that a reader, a crash or a power loss sees either the old contents or the new, never a mix:
/// write a temporary file beside it, fsync it, rename it over the old one, fsync the folder.
public enum AtomicFile {
    /// Writes `bytes` to `path` atomically and durably, with `mode` permissions.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(SystemCallError) {
        let folder = parentFolder(of: path)
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = try syscall("open \(temporary)") { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        var written = 0
        do throws(SystemCallError) {
            while written < bytes.count {
                let count = try syscall("write \(temporary)") {
                    bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
                }
                written += count
            }
            try syscall("fsync \(temporary)") { fsync(fd) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        do throws(SystemCallError) {
            try syscall("rename \(temporary)") { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        let folderFD = try syscall("open \(folder)") { open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(folderFD) }
        try syscall("fsync \(folder)") { fsync(folderFD) }
    }

    /// The whole file; nil when it does not exist.
    public static func read(_ path: String, limit: Int = 16 << 20) throws(SystemCallError) -> [UInt8]? {
        let fd: Int32
        do throws(SystemCallError) {
            fd = try syscall("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        } catch  where error.errno == ENOENT {
            return nil
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = try syscall("read \(path)") {
                chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > limit {
                throw SystemCallError(call: "read \(path) (larger than \(limit) bytes)", errno: EFBIG)
            }
        }
    }

    /// Creates `path` and its missing parents with `mode`.
    public static func makeFolder(_ path: String, mode: mode_t = 0o755) throws(SystemCallError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0 && errno != EEXIST {
                throw SystemCallError(call: "mkdir \(current)", errno: errno)
            }
        }
    }

    static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
