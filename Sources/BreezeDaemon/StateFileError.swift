/// A state that cannot be read or written: too large, not valid, or a system call that failed.
public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The file, or the state to write, is over `StateStore.maximumSize`.
        case tooLarge = "too-large"
        /// Not JSON, not a state, or a value breezed could not have written.
        case invalid
        /// Reading, writing or moving the file failed.
        case system
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
