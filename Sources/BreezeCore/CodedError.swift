/// The shape of a module's errors: a code from the module's own list (stable, for programs and for the daemon's
/// state words), a message for people that says what failed, and the error underneath it where there is one.
///
/// Each module names its own: `public typealias GPSDError = CodedError<GPSDErrorCode>`.
public struct CodedError<Code: RawRepresentable & Sendable>: Error, Sendable, CustomStringConvertible
where Code.RawValue == String {
    public var code: Code
    public var message: String
    /// What failed underneath: a system call, a library's own code.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}

extension CodedError: Equatable where Code: Equatable {
    /// Equal when the codes and messages are, and the causes say the same (a cause need not be equatable).
    public static func == (left: CodedError, right: CodedError) -> Bool {
        left.code == right.code && left.message == right.message
            && left.cause.map { String(describing: $0) } == right.cause.map { String(describing: $0) }
    }
}
