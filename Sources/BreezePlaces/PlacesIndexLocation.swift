import BreezeSystem

/// Where the places index is found when no path is given.
public enum PlacesIndexLocation {
    /// The file name of the index.
    public static let fileName = "places.bin"

    /// The folders searched, in order: `$BREEZE_PLACES_INDEX` (a file), the `share/breeze` folder beside the
    /// running program's `bin`, `/usr/local/share/breeze`, `/usr/share/breeze`, then this source tree's `data/`.
    public static func candidates(environment: ProcessEnvironment.Variables = .process) -> [String] {
        var paths: [String] = []
        if let explicit = environment["BREEZE_PLACES_INDEX"], !explicit.isEmpty { paths.append(explicit) }
        let executable = ProcessEnvironment.resolvedPath(CommandLine.arguments.first ?? "")
        let prefix = parentFolder(of: parentFolder(of: executable))
        paths.append((prefix == "/" ? "" : prefix) + "/share/breeze/\(fileName)")
        paths.append("/usr/local/share/breeze/\(fileName)")
        paths.append("/usr/share/breeze/\(fileName)")
        paths.append(sourceTreeIndex)
        return paths
    }

    /// The index committed with the source, found from this file's own path (for tests and `swift run`).
    public static var sourceTreeIndex: String {
        parentFolder(of: parentFolder(of: parentFolder(of: #filePath))) + "/data/\(fileName)"
    }

    /// The first candidate that exists, or nil.
    public static func find(environment: ProcessEnvironment.Variables = .process) -> String? {
        candidates(environment: environment).first { ProcessEnvironment.exists($0) }
    }
}
