import BreezeCore
import BreezeProtocol

/// A failed breezectl run: the message for the person, and the exit status for scripts.
public struct CLIError: Error, Sendable {
    /// The exit statuses, sysexits(3) style.
    public enum Kind: Int32, Sendable {
        case failure = 1
        /// EX_USAGE.
        case usage = 64
        /// EX_UNAVAILABLE: breezed cannot be reached or did not answer in time, or what was asked for is not
        /// available there (the provider has no data for the place, or web requests are off).
        case unreachable = 69
        /// EX_TEMPFAIL: no data now, which trying again later may give: a fetch failed, or is still under way.
        case temporaryFailure = 75
        /// EX_NOPERM.
        case notPermitted = 77
        /// Left with Ctrl-C: 128 + SIGINT, as shells report a command that an interrupt ended.
        case interrupted = 130
    }

    public var kind: Kind
    public var message: String
    /// The time given with `--timeout` passed while waiting for the daemon.
    public var timedOut = false

    init(_ kind: Kind, _ message: String, timedOut: Bool = false) {
        self.kind = kind
        self.message = message
        self.timedOut = timedOut
    }

    /// From the daemon's `ERROR` object: `not-permitted` exits 77, a bad argument 64, `unavailable` (a refresh
    /// offline or with no place) and the daemon closing 69, anything else 1.
    init(daemonError message: JSONValue) {
        let code = message["code"]?.stringValue ?? "internal"
        let text = message["message"]?.displayText ?? "breezed refused the request"
        switch code {
        case "not-permitted": self.init(.notPermitted, text)
        case "bad-argument": self.init(.usage, text)
        case "shutting-down", "too-many-clients", "unavailable": self.init(.unreachable, text)
        case "not-found" where text.hasPrefix("no city matches"):
            // A name breezed knows no place by: what to try next.
            self.init(
                .failure,
                text + "; check its spelling, or list the places whose names start with its first letters "
                    + "('breezectl search' and a few letters)")
        default: self.init(.failure, "\(text) (\(TerminalText.escaped(code)))")
        }
    }
}
