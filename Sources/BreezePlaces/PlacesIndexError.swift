/// Why a places index could not be used.
public struct PlacesIndexError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The file could not be opened or mapped.
        case unreadable
        /// The file is not a places index, or is damaged.
        case corrupt
        /// The file is a places index of a format this program does not read.
        case unsupportedVersion = "unsupported-version"
    }

    public var code: Code
    public var path: String
    public var message: String

    init(_ code: Code, path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String {
        "places index \(path): \(message)"
    }
}
