import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// GET requests over URLSession with an idle timeout, a deadline for the whole request, and a cap on the body
/// size, answering status, headers and body.
///
/// The body is collected by a data delegate so a transfer that exceeds the cap is cancelled as soon as the
/// delegate sees it; the delegate runs on URLSession's own queue (`SynchronousDelegateQueue`), so a body sent
/// faster than it is read waits in the sender's TCP buffers, not queued in this process. The
/// deadline is the client's own timer, since URLSession's resource timeout let a body trickled at 1 KiB/s run on
/// for minutes.
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
    /// Requests at once; one more fails at once with `overBudget` instead of queueing behind them in URLSession,
    /// which would hold each one's memory for as long as the backlog takes (a flood of searches grew it by gigabytes).
    public let maximumInFlight: Int
    private let inFlight = Mutex(0)
    private let session: URLSession
    private let transfers: TransferDelegate

    /// - Parameters:
    ///   - userAgent: sent with every request (Nominatim's policy asks for one that identifies the application).
    ///   - timeout: seconds without progress (no answer, or a stalled body) before the request fails.
    ///   - deadline: seconds for the whole request; past them it fails with `timeout`, however it progresses. A
    ///     value that is not a positive number of seconds up to a day means 30.
    ///   - maximumBodySize: bytes; a larger body fails with `tooLarge`, and its transfer is abandoned.
    ///   - budget: every request is admitted by it first; nil admits all.
    ///   - maximumInFlight: requests at once (at least 1).
    public init(
        userAgent: String, timeout: Double = 20, deadline: Double = 30, maximumBodySize: Int = 4 << 20,
        budget: RequestBudget? = nil, maximumInFlight: Int = 16
    ) {
        self.maximumInFlight = max(1, maximumInFlight)
        self.maximumBodySize = maximumBodySize
        self.deadline = deadline.isFinite && deadline > 0 && deadline <= 86_400 ? deadline : 30
        self.budget = budget
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = self.deadline
        configuration.httpAdditionalHeaders = ["User-Agent": userAgent, "Accept": "application/json"]
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        transfers = TransferDelegate(maximumBodySize: maximumBodySize)
        session = URLSession(configuration: configuration, delegate: transfers, delegateQueue: SynchronousDelegateQueue())
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Whether a request started now would be sent: a slot is free and the budget has room. A hint (another
    /// request may take the slot first), for callers that would rather answer without the web than be refused.
    public var canStartNow: Bool {
        inFlight.withLock { $0 < maximumInFlight } && budget?.hasRoom != false
    }

    /// Fetches `url`. Any HTTP status is an answer; only transport failures, timeouts, the deadline and the size
    /// cap throw. Cancelling the calling task cancels the transfer.
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
        let task = session.dataTask(with: url)
        let timer = Task { [transfers, deadline] in
            // Cancelled when the transfer ends first, so the sleep throws and nothing fails.
            guard (try? await Task.sleep(for: .seconds(deadline))) != nil else { return }
            transfers.fail(task, WebError(.timeout, "no complete answer within the deadline of \(Self.seconds(deadline)) s"))
            TransferDelegate.cancel(task)
        }
        defer { timer.cancel() }
        let result: Result<Response, WebError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfers.begin(task, continuation)
                // Cancelled before the transfer was registered: the handler below found nothing to answer.
                if Task.isCancelled {
                    transfers.abandon(task, WebError(.transport, "cancelled"))
                    return
                }
                task.resume()
            }
        } onCancel: {
            TransferDelegate.cancel(task)
        }
        return try result.get()
    }

    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}

/// Collects each transfer's response and body; one delegate for the session, transfers keyed by task.
///
/// A transfer's caller is answered once: by URLSession's completion, or before it by the deadline (`fail`).
final class TransferDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the only stored state besides the constant cap is `transfers`, guarded by its Mutex.
    typealias Continuation = CheckedContinuation<Result<HTTPClient.Response, WebError>, Never>

    private struct Transfer {
        /// Nil once the caller has been answered (by `fail`), while URLSession winds the transfer down.
        var continuation: Continuation?
        var response: HTTPURLResponse?
        var body = Data()
        var tooLarge = false
    }

    private let maximumBodySize: Int
    private let transfers = Mutex<[Int: Transfer]>([:])

    init(maximumBodySize: Int) {
        self.maximumBodySize = maximumBodySize
    }

    func begin(_ task: URLSessionTask, _ continuation: Continuation) {
        transfers.withLock { $0[task.taskIdentifier] = Transfer(continuation: continuation) }
    }

    /// Answers the transfer's caller with `error` now, if it has not been answered, and releases its body; the
    /// transfer stays known until URLSession completes it.
    /// Answers the caller of a transfer that was never started and forgets it (URLSession will not report it).
    func abandon(_ task: URLSessionTask, _ error: WebError) {
        let continuation = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier)?.continuation }
        continuation?.resume(returning: .failure(error))
    }

    func fail(_ task: URLSessionTask, _ error: WebError) {
        let continuation = transfers.withLock { transfers -> Continuation? in
            guard let index = transfers.index(forKey: task.taskIdentifier) else { return nil }
            let continuation = transfers.values[index].continuation
            transfers.values[index].continuation = nil
            transfers.values[index].body = Data()
            if error.code == .tooLarge { transfers.values[index].tooLarge = true }
            return continuation
        }
        continuation?.resume(returning: .failure(error))
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLarge = transfers.withLock { transfers -> Bool in
            transfers[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse
            if response.expectedContentLength > Int64(maximumBodySize) {
                transfers[dataTask.taskIdentifier]?.tooLarge = true
                return true
            }
            return false
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = transfers.withLock { transfers -> Bool in
            guard let index = transfers.index(forKey: dataTask.taskIdentifier) else { return false }
            // In place, so the body is not copied at each chunk.
            if transfers.values[index].tooLarge { return false }
            if transfers.values[index].body.count + data.count > maximumBodySize {
                transfers.values[index].tooLarge = true
                transfers.values[index].body = Data()
                return true
            }
            transfers.values[index].body.append(data)
            return false
        }
        if cancel { Self.cancel(dataTask) }
    }

    /// Cancels `task` from a thread of its own.
    ///
    /// This toolchain's `cancel()` waits for URLSession's queue, on which the delegate runs
    /// (`SynchronousDelegateQueue`) and resumes callers; called from the delegate it would wait for itself, and
    /// called from a task's cancellation handler (which holds the task's lock, which resuming it needs) the two
    /// would wait for each other.
    static func cancel(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.continuation?.resume(returning: Self.result(transfer, error: error, limit: maximumBodySize))
    }

    private static func result(_ transfer: Transfer, error: Error?, limit: Int) -> Result<HTTPClient.Response, WebError> {
        if transfer.tooLarge {
            return .failure(WebError(.tooLarge, "the response exceeded \(limit) bytes and was refused"))
        }
        if let error {
            let nsError = error as NSError
            switch (nsError.domain, nsError.code) {
            case (NSURLErrorDomain, NSURLErrorTimedOut):
                return .failure(WebError(.timeout, "no answer within the timeout"))
            case (NSURLErrorDomain, NSURLErrorCancelled):
                return .failure(WebError(.transport, "cancelled"))
            default:
                return .failure(WebError(.transport, nsError.localizedDescription))
            }
        }
        guard let response = transfer.response else {
            return .failure(WebError(.transport, "no HTTP response"))
        }
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return .success(HTTPClient.Response(status: response.statusCode, headers: headers, body: transfer.body))
    }
}
