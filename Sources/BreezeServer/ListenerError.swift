public import BreezeCore
import BreezeSystem

/// Why a listening socket could not be made at a path: a code the daemon can report, a message for people, and the
/// failed system call where there is one.
public typealias ListenerError = CodedError<ListenerErrorCode>

public enum ListenerErrorCode: String, Sendable {
    /// Another process answers on the socket at the path: it is left alone.
    case inUse = "in-use"
    /// A file that is not a socket is at the path: it is left alone.
    case notASocket = "not-a-socket"
    case pathTooLong = "path-too-long"
    case systemCall = "system-call"
}

extension ListenerError {
    init(_ cause: SystemCallError) {
        self.init(.systemCall, cause.description, cause: cause)
    }
}
