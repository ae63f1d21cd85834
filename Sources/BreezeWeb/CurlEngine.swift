import BreezeCore
internal import CCurl
import FoundationEssentials
import Glibc
import Synchronization

/// Every HTTP transfer of the process, on one libcurl multi handle driven by one thread of its own.
///
/// One multi handle rather than an easy handle per request on a thread each: the transfers share one connection
/// cache and one DNS cache, a cancelled transfer is taken off at once (`curl_multi_wakeup` interrupts the wait),
/// and the process has one HTTP thread however many requests are under way, asleep in `curl_multi_poll` while
/// none are.
///
/// The bounds are libcurl's own: `CURLOPT_TIMEOUT_MS` for the whole request, `CURLOPT_CONNECTTIMEOUT_MS` and a
/// low-speed limit of one byte a second for the idle timeout, `CURLOPT_MAXFILESIZE_LARGE` for a declared body
/// over the cap and the write callback for a body that grows past it (chunked or undeclared).
///
/// libcurl is loaded with dlopen when the engine is first asked for (`CCurl_load`), not linked: a daemon that never
/// fetches (`--offline`) never loads it, nor the TLS libraries behind it.
final class CurlEngine: @unchecked Sendable {
    // @unchecked: `api` and `multi` are set once (the table `api` points to, before the engine exists); `active` is
    // touched only by the engine's thread; the rest is in `state`, guarded by its Mutex. libcurl's multi calls but
    // `curl_multi_wakeup` run on the engine's thread alone.
    typealias Continuation = CheckedContinuation<Result<HTTPClient.Response, WebError>, Never>

    struct Request: Sendable {
        var url: String
        var userAgent: String
        /// Seconds without progress.
        var timeout: Double
        /// Seconds for the whole request.
        var deadline: Double
        var maximumBodySize: Int
        /// Certificate authorities to verify HTTPS servers against (a PEM file); nil for the system's.
        var caFile: String?
    }

    private struct State {
        var nextIdentifier = 0
        /// Callers not answered yet, by transfer.
        var waiting: [Int: Continuation] = [:]
        /// Transfers for the engine's thread to add, then to take off.
        var starting: [(Int, Request)] = []
        var cancelled: [Int] = []
    }

    /// The process's engine, started at the first request; or why it could not be (libcurl missing: Debian's
    /// libcurl4), for every request to fail with.
    static let shared: Result<CurlEngine, WebError> = {
        // Kept for the life of the process, as the library is.
        let api = UnsafeMutablePointer<CCurl_api>.allocate(capacity: 1)
        api.initialize(to: CCurl_api())
        if let failure = CCurl_load(api) {
            let library = String(cString: CCurl_library_name())
            return .failure(WebError(.transport, "cannot load \(library): \(String(cString: failure))"))
        }
        // Once per process, before any other libcurl call (this closure runs once: `shared` is a lazy global).
        let initialized = api.pointee.global_init!(Int(CURL_GLOBAL_DEFAULT))
        guard initialized == CURLE_OK else {
            let reason = CurlEngine.text(api.pointee.easy_strerror!(initialized))
            return .failure(WebError(.transport, "libcurl could not be initialized: \(reason)"))
        }
        guard let multi = api.pointee.multi_init!() else {
            return .failure(WebError(.transport, "libcurl: no multi handle"))
        }
        return .success(CurlEngine(UnsafePointer(api), multi))
    }()

    private let api: UnsafePointer<CCurl_api>
    private let multi: UnsafeMutableRawPointer
    private let state = Mutex(State())
    /// The engine thread's transfers, by easy handle.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]

    private init(_ api: UnsafePointer<CCurl_api>, _ multi: UnsafeMutableRawPointer) {
        self.api = api
        self.multi = multi
        var thread = pthread_t()
        let engine = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { engine in
                Unmanaged<CurlEngine>.fromOpaque(engine!).takeRetainedValue().run()
                return nil
            }, engine)
        guard created == 0 else {
            fatalError("the HTTP thread could not be started: \(String(cString: strerror(created)))")
        }
        pthread_detach(thread)
    }

    func newIdentifier() -> Int {
        state.withLock { state in
            state.nextIdentifier += 1
            return state.nextIdentifier
        }
    }

    /// Hands a transfer to the engine's thread; `continuation` is resumed once, with its answer or its failure.
    func start(_ identifier: Int, _ request: Request, _ continuation: Continuation) {
        state.withLock { state in
            state.waiting[identifier] = continuation
            state.starting.append((identifier, request))
        }
        _ = api.pointee.multi_wakeup!(multi)
    }

    /// Answers the transfer's caller now, if it has not been answered, and has the engine's thread drop the
    /// transfer.
    func cancel(_ identifier: Int) {
        let continuation = state.withLock { state -> Continuation? in
            guard let continuation = state.waiting.removeValue(forKey: identifier) else { return nil }
            state.cancelled.append(identifier)
            return continuation
        }
        guard let continuation else { return }
        continuation.resume(returning: .failure(WebError(.transport, "cancelled")))
        _ = api.pointee.multi_wakeup!(multi)
    }

    private func answer(_ identifier: Int, _ result: Result<HTTPClient.Response, WebError>) {
        state.withLock { $0.waiting.removeValue(forKey: identifier) }?.resume(returning: result)
    }

    private func run() {
        var running: Int32 = 0
        var remaining: Int32 = 0
        while true {
            let (starting, cancelled) = state.withLock { state in
                defer {
                    state.starting.removeAll()
                    state.cancelled.removeAll()
                }
                return (state.starting, state.cancelled)
            }
            let dropped = Set(cancelled)
            for (identifier, request) in starting where !dropped.contains(identifier) {
                add(identifier, request)
            }
            if !dropped.isEmpty {
                let handles = active.filter { dropped.contains($0.value.identifier) }.keys
                for handle in handles { remove(handle) }
            }
            _ = api.pointee.multi_perform!(multi, &running)
            while let message = api.pointee.multi_info_read!(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let transfer = active[handle]
                else { continue }
                let code = CCurl_message_result(message)
                remove(handle)
                answer(transfer.identifier, transfer.result(code))
            }
            // libcurl shortens the wait to its own next timer; with nothing under way, only a wake-up ends it.
            _ = api.pointee.multi_poll!(multi, nil, 0, active.isEmpty ? Int32.max : 60_000, nil)
        }
    }

    private func add(_ identifier: Int, _ request: Request) {
        let transfer: Transfer
        do throws(WebError) {
            transfer = try Transfer(api, identifier, request)
        } catch {
            answer(identifier, .failure(error))
            return
        }
        let added = api.pointee.multi_add_handle!(multi, transfer.handle)
        guard added == CURLM_OK else {
            let reason = CurlEngine.text(api.pointee.multi_strerror!(added))
            answer(identifier, .failure(WebError(.transport, "libcurl: \(reason)")))
            return
        }
        active[transfer.handle] = transfer
    }

    /// libcurl's text for a code (its strerror functions answer a static string).
    static func text(_ string: UnsafePointer<CChar>?) -> String {
        string.map { String(cString: $0) } ?? "unknown error"
    }

    private func remove(_ handle: UnsafeMutableRawPointer) {
        _ = api.pointee.multi_remove_handle!(multi, handle)
        active.removeValue(forKey: handle)
    }
}

/// One transfer: its easy handle, and what its callbacks collect. Touched only by the engine's thread.
private final class Transfer {
    static let maximumRedirects = 10

    let identifier: Int
    let handle: UnsafeMutableRawPointer
    private let api: UnsafePointer<CCurl_api>
    private let request: CurlEngine.Request
    private let started = ContinuousClock.now
    /// How much earlier than this process's clock libcurl's deadline may fire.
    private static let timerSlack = Duration.milliseconds(100)
    private let headerList: UnsafeMutablePointer<curl_slist>?
    private let errorText: UnsafeMutablePointer<CChar>
    private var headers: [String: String] = [:]
    /// The header bytes of the current response, and whether they passed `maximumHeaderBytes`.
    private var headerBytes = 0
    private var headersTooLarge = false
    /// Headers a response may send: far more than any API here sends, far less than the work of joining repeats.
    static let maximumHeaderBytes = 64 << 10
    private var body = Data()
    private var tooLarge = false

    init(_ api: UnsafePointer<CCurl_api>, _ identifier: Int, _ request: CurlEngine.Request) throws(WebError) {
        guard let handle = api.pointee.easy_init!() else { throw WebError(.transport, "libcurl: no easy handle") }
        self.api = api
        self.identifier = identifier
        self.handle = handle
        self.request = request
        headerList = api.pointee.slist_append!(nil, "Accept: application/json")
        errorText = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try configure()
    }

    deinit {
        api.pointee.easy_cleanup!(handle)
        api.pointee.slist_free_all!(headerList)
        errorText.deallocate()
    }

    private func configure() throws(WebError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let idle = Int(min(request.timeout, 86_400) * 1_000)
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_URL, request.url))
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        try check(CCurl_setopt_long(api, handle, CURLOPT_FOLLOWLOCATION, 1))
        try check(CCurl_setopt_long(api, handle, CURLOPT_MAXREDIRS, Self.maximumRedirects))
        if let caFile = request.caFile {
            // Instead of the system's authorities: libcurl's built-in folder of them goes too.
            try check(CCurl_setopt_pointer(api, handle, CURLOPT_CAINFO, caFile))
            try check(CCurl_setopt_pointer(api, handle, CURLOPT_CAPATH, nil))
        }
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_USERAGENT, request.userAgent))
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_HTTPHEADER, headerList))
        // Every encoding libcurl decodes; the body cap counts decoded bytes.
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_ACCEPT_ENCODING, ""))
        try check(CCurl_setopt_long(api, handle, CURLOPT_NOSIGNAL, 1))
        try check(CCurl_setopt_long(api, handle, CURLOPT_TIMEOUT_MS, Int(min(request.deadline, 86_400) * 1_000)))
        try check(CCurl_setopt_long(api, handle, CURLOPT_CONNECTTIMEOUT_MS, max(1, idle)))
        // Idle: less than a byte a second for the timeout (libcurl counts it in whole seconds).
        try check(CCurl_setopt_long(api, handle, CURLOPT_LOW_SPEED_LIMIT, 1))
        try check(CCurl_setopt_long(api, handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.timeout.rounded(.up)))))
        try check(CCurl_setopt_off(api, handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maximumBodySize)))
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_ERRORBUFFER, errorText))
        try check(
            CCurl_setopt_data_callback(api, handle, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
                Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().receive(bytes, size * count)
            })
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_WRITEDATA, context))
        try check(
            CCurl_setopt_data_callback(api, handle, CURLOPT_HEADERFUNCTION) { bytes, size, count, context in
                Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().header(bytes, size * count)
            })
        try check(CCurl_setopt_pointer(api, handle, CURLOPT_HEADERDATA, context))
    }

    private func check(_ code: CURLcode) throws(WebError) {
        guard code == CURLE_OK else {
            throw WebError(.transport, "libcurl: \(CurlEngine.text(api.pointee.easy_strerror!(code)))")
        }
    }

    /// Part of the body; answering fewer bytes than given stops the transfer (`CURLE_WRITE_ERROR`).
    private func receive(_ bytes: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let bytes, !tooLarge else { return 0 }
        if body.count + count > request.maximumBodySize {
            tooLarge = true
            body = Data()
            return 0
        }
        bytes.withMemoryRebound(to: UInt8.self, capacity: count) { body.append($0, count: count) }
        return count
    }

    /// One header line; a status line starts the headers of a new response (after a redirect, or a 100).
    private func header(_ bytes: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let bytes else { return count }
        let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = [:]
            headerBytes = 0
            return count
        }
        headerBytes += count
        guard headerBytes <= Self.maximumHeaderBytes else {
            headersTooLarge = true
            return 0  // libcurl ends the transfer
        }
        guard let colon = line.firstIndex(of: ":") else { return count }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingWhitespaceAndNewlines()
        if let earlier = headers[name] {
            headers[name] = earlier + ", " + value
        } else {
            headers[name] = value
        }
        return count
    }

    func result(_ code: CURLcode) -> Result<HTTPClient.Response, WebError> {
        if headersTooLarge {
            return .failure(
                WebError(.tooLarge, "the response's headers exceeded \(Self.maximumHeaderBytes) bytes and were refused")
            )
        }
        if tooLarge || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(
                WebError(.tooLarge, "the response exceeded \(request.maximumBodySize) bytes and was refused"))
        }
        switch code {
        case CURLE_OK:
            var status = 0
            _ = CCurl_getinfo_long(api, handle, CURLINFO_RESPONSE_CODE, &status)
            guard status > 0 else { return .failure(WebError(.transport, "no HTTP response")) }
            return .success(HTTPClient.Response(status: status, headers: headers, body: body))
        case CURLE_OPERATION_TIMEDOUT:
            // libcurl's timers run on its own clock and may fire a little before this one reaches the deadline.
            if ContinuousClock.now - started >= .milliseconds(Int(request.deadline * 1_000)) - Self.timerSlack {
                return .failure(
                    WebError(.timeout, "no complete answer within the deadline of \(Self.seconds(request.deadline)) s"))
            }
            return .failure(WebError(.timeout, "no answer within the timeout"))
        case CURLE_TOO_MANY_REDIRECTS:
            return .failure(WebError(.transport, "more than \(Self.maximumRedirects) redirects: \(reason(code))"))
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(WebError(.transport, "only http and https are fetched: \(reason(code))"))
        case CURLE_PEER_FAILED_VERIFICATION:
            return .failure(WebError(.transport, "the server's certificate is not trusted: \(reason(code))"))
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .failure(WebError(.transport, "DNS lookup failed: \(reason(code))"))
        default:
            return .failure(WebError(.transport, reason(code)))
        }
    }

    /// libcurl's words for the failure: its error buffer, else the code's general text.
    private func reason(_ code: CURLcode) -> String {
        let text = String(cString: errorText)
        return text.isEmpty ? CurlEngine.text(api.pointee.easy_strerror!(code)) : text
    }

    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }
}
