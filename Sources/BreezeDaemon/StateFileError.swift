/// A state that cannot be read or written: too large, not valid, or a system call that failed (the cause).
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
    /// What failed underneath, where a system call did.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}
