public import BreezeCore

/// A state that cannot be read or written: too large, not valid, or a system call that failed (the cause).
public typealias StateFileError = CodedError<StateFileErrorCode>

public enum StateFileErrorCode: String, Sendable {
    /// The file, or the state to write, is over `StateStore.maximumSize`.
    case tooLarge = "too-large"
    /// Not JSON, not a state, or a value breezed could not have written.
    case invalid
    /// Reading, writing or moving the file failed.
    case system
}
