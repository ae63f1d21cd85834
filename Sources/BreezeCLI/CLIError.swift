import BreezeProtocol

/// A failed breezectl run: the message for the person, and the exit status for scripts.
public struct CLIError: Error, Sendable {
    public enum Kind: Int32, Sendable {
        case failure = 1
        case usage = 64
        case unreachable = 69
        case notPermitted = 77
    }

    public var kind: Kind
    public var message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// From the daemon's `ERROR` object: `not-permitted` exits 77, a bad argument 64, anything else 1.
    init(daemonError message: JSONValue) {
        let code = message["code"]?.stringValue ?? "internal"
        let text = message["message"]?.displayText ?? "breezed refused the request"
        switch code {
        case "not-permitted": self.init(.notPermitted, text)
        case "bad-argument": self.init(.usage, text)
        case "shutting-down", "too-many-clients": self.init(.unreachable, text)
        default: self.init(.failure, "\(text) (\(TerminalText.escaped(code)))")
        }
    }
}
