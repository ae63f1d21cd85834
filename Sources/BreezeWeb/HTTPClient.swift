import FoundationEssentials
import Synchronization

/// GET requests with an idle timeout, a deadline for the whole request, and a cap on the body size, answering
/// status, headers and body.
///
/// Requests go through libcurl (`CurlEngine`, loaded at the first request): one multi handle and one thread for the
/// process. The body is
/// collected by libcurl's write callback, which runs before libcurl reads on, so a transfer that exceeds the cap
/// stops as soon as the callback sees it and a body sent faster than it is read waits in the sender's TCP
/// buffers, not in this process.
public final class HTTPClient: Sendable {
    public struct Response: Sendable {
        public var status: Int
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: Data
    }

    public let maximumBodySize: Int
    /// Seconds a request may take from start to the end of its body, however steadily it progresses.
    public let deadline: Double
    public let budget: RequestBudget?
    /// Requests at once; one more fails at once with `overBudget` instead of queueing behind them, which would
    /// hold each one's memory for as long as the backlog takes (a flood of searches grew it by gigabytes).
    public let maximumInFlight: Int
    private let inFlight = Mutex(0)
    private let userAgent: String
    private let timeout: Double
    private let caFile: String?

    /// - Parameters:
    ///   - userAgent: sent with every request (Nominatim's policy asks for one that identifies the application).
    ///   - timeout: seconds without progress (no connection, no answer, or a stalled body) before the request
    ///     fails.
    ///   - deadline: seconds for the whole request; past them it fails with `timeout`, however it progresses. A
    ///     value that is not a positive number of seconds up to a day means 30.
    ///   - maximumBodySize: bytes; a larger body fails with `tooLarge`, and its transfer is abandoned.
    ///   - budget: every request is admitted by it first; nil admits all.
    ///   - maximumInFlight: requests at once (at least 1).
    ///   - caFile: a PEM file of the certificate authorities HTTPS servers are verified against, instead of the
    ///     system's; nil for the system's.
    public init(
        userAgent: String, timeout: Double = 20, deadline: Double = 30, maximumBodySize: Int = 4 << 20,
        budget: RequestBudget? = nil, maximumInFlight: Int = 16, caFile: String? = nil
    ) {
        self.maximumInFlight = max(1, maximumInFlight)
        self.maximumBodySize = maximumBodySize
        self.deadline = deadline.isFinite && deadline > 0 && deadline <= 86_400 ? deadline : 30
        self.budget = budget
        self.userAgent = userAgent
        self.timeout = timeout.isFinite && timeout > 0 && timeout <= 86_400 ? timeout : 20
        self.caFile = caFile
    }

    /// Whether a request started now would be sent: a slot is free and the budget has room. A hint (another
    /// request may take the slot first), for callers that would rather answer without the web than be refused.
    public var canStartNow: Bool {
        inFlight.withLock { $0 < maximumInFlight } && budget?.hasRoom != false
    }

    /// Fetches `url`. Any HTTP status is an answer; only transport failures, timeouts, the deadline and the size
    /// cap throw. Cancelling the calling task answers at once with a `transport` error and abandons the transfer.
    public func get(_ url: URL) async throws(WebError) -> Response {
        if Task.isCancelled { throw WebError(.transport, "cancelled") }
        let admitted = inFlight.withLock { count in
            guard count < maximumInFlight else { return false }
            count += 1
            return true
        }
        guard admitted else { throw WebError(.overBudget, "\(maximumInFlight) requests are already under way") }
        defer { inFlight.withLock { $0 -= 1 } }
        try budget?.admit()
        let request = CurlEngine.Request(
            url: url.absoluteString, userAgent: userAgent, timeout: timeout, deadline: deadline,
            maximumBodySize: maximumBodySize, caFile: caFile)
        let engine = try CurlEngine.shared.get()
        let identifier = engine.newIdentifier()
        let result: Result<Response, WebError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                engine.start(identifier, request, continuation)
                // Cancelled before the transfer was registered: the handler below found nothing to answer.
                if Task.isCancelled { engine.cancel(identifier) }
            }
        } onCancel: {
            engine.cancel(identifier)
        }
        return try result.get()
    }
}
