import Glibc

/// The process's environment and paths, read from the C library (`getenv`, `getcwd`, `realpath`, `stat`).
public enum ProcessEnvironment {
    /// The variable `name`, or nil when it is not set (`getenv`: of a name given twice, the first).
    public static func variable(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// `path` made absolute against the working folder, its symbolic links resolved (`realpath`) where it exists.
    public static func resolvedPath(_ path: String) -> String {
        var absolute = path
        if !path.hasPrefix("/") {
            guard let working = getcwd(nil, 0) else { return path }
            defer { free(working) }
            let folder = String(cString: working)
            absolute = folder.hasSuffix("/") ? folder + path : folder + "/" + path
        }
        guard let resolved = realpath(absolute, nil) else { return absolute }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether anything (a file, a folder) is at `path` (`stat` follows symbolic links).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}
