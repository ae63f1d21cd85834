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

    public var code: Code
    public var reason: String
    public var status: Int?
    /// Seconds the server asked us to wait (`Retry-After`), if it said.
    public var retryAfter: Double?

    public init(_ code: Code, _ reason: String, status: Int? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.reason = reason
        self.status = status
        self.retryAfter = retryAfter
    }

    /// Whether trying again later may help. A refused request, or a body too large, will only be refused again.
    public var isRetryable: Bool {
        switch code {
        case .badRequest, .tooLarge: false
        case .transport, .timeout, .rateLimited, .serverError, .unavailable, .unexpectedStatus, .badPayload, .overBudget:
            true
        }
    }

    public var description: String {
        (status.map { "HTTP \($0): " } ?? "") + reason
    }
}
