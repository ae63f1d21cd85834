/// A failed web request: a code for programs, the reason for people (Open-Meteo's own `reason` where it gave one),
/// and when the server asked to be left alone (`Retry-After`).
public struct WebError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// No connection, connection reset, DNS failure: the network.
        case transport
        /// No answer, or a stalled body, within the timeout.
        case timeout
        /// The body exceeded the size cap; the transfer was stopped.
        case tooLarge = "too-large"
        /// 400: the server refused the request (Open-Meteo's `{"error":true,"reason":…}`).
        case badRequest = "bad-request"
        /// 429: over the provider's quota.
        case rateLimited = "rate-limited"
        /// 500 and other 5xx but 503.
        case serverError = "server-error"
        /// 503: the provider is overloaded.
        case unavailable
        /// Any other unexpected status.
        case unexpectedStatus = "unexpected-status"
        /// A body that is not the JSON expected: empty, truncated, invalid, or a value of the wrong type.
        case badPayload = "bad-payload"
        /// Not sent: the daemon's own request budget is spent for now.
        case overBudget = "over-budget"
    }

    /// Characters kept of a reason. A reason often comes from the server (Open-Meteo's `reason`, a name in a
    /// decoding path) and goes on to the journal and to clients: its text is kept raw (escaping is the writer's
    /// job), its length is not the server's to choose.
    public static let maximumReasonLength = 200

    public var code: Code
    /// Capped at `maximumReasonLength` characters, however it is set.
    public var reason: String {
        get { cappedReason }
        set { cappedReason = Self.capped(newValue) }
    }
    public var status: Int?
    /// Seconds the server asked us to wait (`Retry-After`), if it said.
    public var retryAfter: Double?
    private var cappedReason: String

    public init(_ code: Code, _ reason: String, status: Int? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.cappedReason = Self.capped(reason)
        self.status = status
        self.retryAfter = retryAfter
    }

    private static func capped(_ reason: String) -> String {
        guard reason.utf8.count > maximumReasonLength, reason.count > maximumReasonLength else { return reason }
        return String(reason.prefix(maximumReasonLength - 1)) + "…"
    }

    /// Whether trying again later may help. A refused request, or a body too large, will only be refused again.
    public var isRetryable: Bool {
        switch code {
        case .badRequest, .tooLarge: false
        case .transport, .timeout, .rateLimited, .serverError, .unavailable, .unexpectedStatus, .badPayload,
            .overBudget:
            true
        }
    }

    public var description: String {
        (status.map { "HTTP \($0): " } ?? "") + reason
    }
}
