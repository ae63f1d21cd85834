import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// GET requests over URLSession with a timeout and a cap on the body size, answering status, headers and body.
///
/// The body is collected by a data delegate so a transfer that exceeds the cap is cancelled as soon as it does,
/// rather than after a huge body has been held in memory.
public final class HTTPClient: Sendable {
    public struct Response: Sendable {
        public var status: Int
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: Data
    }

    public let maximumBodySize: Int
    public let budget: RequestBudget?
    private let session: URLSession
    private let transfers: TransferDelegate

    /// - Parameters:
    ///   - userAgent: sent with every request (Nominatim's policy asks for one that identifies the application).
    ///   - timeout: seconds without progress (no answer, or a stalled body) before the request fails.
    ///   - maximumBodySize: bytes; a larger body fails with `tooLarge`.
    ///   - budget: every request is admitted by it first; nil admits all.
    public init(userAgent: String, timeout: Double = 20, maximumBodySize: Int = 4 << 20, budget: RequestBudget? = nil) {
        self.maximumBodySize = maximumBodySize
        self.budget = budget
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 3
        configuration.httpAdditionalHeaders = ["User-Agent": userAgent, "Accept": "application/json"]
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        transfers = TransferDelegate(maximumBodySize: maximumBodySize)
        session = URLSession(configuration: configuration, delegate: transfers, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Fetches `url`. Any HTTP status is an answer; only transport failures, timeouts and the size cap throw.
    /// Cancelling the calling task cancels the transfer.
    public func get(_ url: URL) async throws(WebError) -> Response {
        if Task.isCancelled { throw WebError(.transport, "cancelled") }
        try budget?.admit()
        let task = session.dataTask(with: url)
        let result: Result<Response, WebError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfers.begin(task, continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }
}

/// Collects each transfer's response and body; one delegate for the session, transfers keyed by task.
final class TransferDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the only stored state besides the constant cap is `transfers`, guarded by its Mutex.
    typealias Continuation = CheckedContinuation<Result<HTTPClient.Response, WebError>, Never>

    private struct Transfer {
        var continuation: Continuation
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
            guard var transfer = transfers[dataTask.taskIdentifier], !transfer.tooLarge else { return false }
            if transfer.body.count + data.count > maximumBodySize {
                transfer.tooLarge = true
                transfer.body = Data()
            } else {
                transfer.body.append(data)
            }
            transfers[dataTask.taskIdentifier] = transfer
            return transfer.tooLarge
        }
        if cancel { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        transfer.continuation.resume(returning: Self.result(transfer, error: error, limit: maximumBodySize))
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
