import FoundationEssentials

/// Where the places index is found when no path is given.
public enum PlacesIndexLocation {
    /// The file name of the index.
    public static let fileName = "places.bin"

    /// The folders searched, in order: `$BREEZE_PLACES_INDEX` (a file), the `share/breeze` folder beside the
    /// running program's `bin`, `/usr/local/share/breeze`, `/usr/share/breeze`, then this source tree's `data/`.
    public static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var paths: [String] = []
        if let explicit = environment["BREEZE_PLACES_INDEX"], !explicit.isEmpty { paths.append(explicit) }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let prefix = executable.deletingLastPathComponent().deletingLastPathComponent()
        paths.append(prefix.appendingPathComponent("share/breeze/\(fileName)").path)
        paths.append("/usr/local/share/breeze/\(fileName)")
        paths.append("/usr/share/breeze/\(fileName)")
        paths.append(sourceTreeIndex)
        return paths
    }

    /// The index committed with the source, found from this file's own path (for tests and `swift run`).
    public static var sourceTreeIndex: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("data/\(fileName)").path
    }

    /// The first candidate that exists, or nil.
    public static func find(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        candidates(environment: environment).first { FileManager.default.fileExists(atPath: $0) }
    }
}
