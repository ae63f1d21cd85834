import Glibc

/// The process's environment and paths, read from the C library (`environ`, `getcwd`, `realpath`, `stat`).
public enum ProcessEnvironment {
    /// Every `NAME=value` of `environ`, by name; an entry without `=` is skipped, and of a name given twice the first
    /// is kept (as `getenv` finds it).
    public static var variables: [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return variables
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
