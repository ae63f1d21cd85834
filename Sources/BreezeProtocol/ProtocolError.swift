public import BreezeCore

/// An error that goes out on the wire as an `ERROR` object: a stable code for programs, a message for people.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case malformedJSON = "malformed-json"
        case lineTooLong = "line-too-long"
        case invalidText = "invalid-text"
        case unknownCommand = "unknown-command"
        case badArgument = "bad-argument"
        case notPermitted = "not-permitted"
        case notFound = "not-found"
        case tooManyClients = "too-many-clients"
        case slowClient = "slow-client"
        case unavailable
        case shuttingDown = "shutting-down"
        /// Anything unexpected: details stay in the daemon's log.
        case `internal`
    }

    public var code: Code
    public var message: String
    /// The `id` of the request it answers, when the line parsed far enough to have one (an unknown command, a
    /// missing one): its `ERROR` carries it like any other reply.
    public var requestID: JSONValue?

    public init(_ code: Code, _ message: String, requestID: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.requestID = requestID
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
