import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#endif

/// The loopback web-API fixture (`Tests/Fixtures/web-fixture.py`): real-shaped Open-Meteo, Google Pollen and
/// Nominatim payloads, and faults on demand.
public final class WebFixture: @unchecked Sendable {
    // @unchecked: every stored property is a constant; ChildProcess is safe to terminate from any thread.
    public let port: Int
    public let baseURL: URL
    private let process: ChildProcess

    /// One request the fixture served.
    public struct Request: Decodable, Sendable {
        public var path: String
        public var query: String
        public var start: Double
        public var end: Double?
    }

    public static let script = FixtureServer.script("web-fixture.py")

    /// - Parameters: certificate, key: PEM files to serve HTTPS with (the control endpoints too, which this class
    ///   then cannot reach: for tests of the data alone); nil for HTTP.
    public init(certificate: String? = nil, key: String? = nil) async throws {
        var arguments = ["0"]
        if let certificate, let key { arguments += [certificate, key] }
        (process, port) = try await FixtureServer.launch(Self.script, arguments, name: "web fixture")
        baseURL = URL(string: "\(certificate == nil ? "http" : "https")://127.0.0.1:\(port)")!
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    public func stop() {
        if process.isRunning { process.terminate() }
    }

    /// Sets a fault for the next `count` requests to `path` whose query contains `match`.
    ///
    /// - Parameters:
    ///   - top: for `values`, members set at the top of the answer (`utc_offset_seconds`).
    ///   - current: for `values`, members set in its `current` object (`us_aqi`).
    ///   - reason: for the error kinds, the `reason` the answer gives.
    ///   - rate: for `trickle`, bytes a second.
    public func fault(
        _ kind: String, path: String, match: String = "", count: Int = 1, retryAfter: Double? = nil,
        delay: Double? = nil, size: Int? = nil, top: [String: Any]? = nil, current: [String: Any]? = nil,
        reason: String? = nil, rate: Double? = nil
    ) async throws {
        var fault: [String: Any] = ["kind": kind, "path": path, "match": match, "count": count]
        if let retryAfter { fault["retry_after"] = retryAfter }
        if let delay { fault["delay"] = delay }
        if let size { fault["size"] = size }
        if let top { fault["top"] = top }
        if let current { fault["current"] = current }
        if let reason { fault["reason"] = reason }
        if let rate { fault["rate"] = rate }
        _ = try await post("/_faults", try JSONSerialization.data(withJSONObject: fault))
    }

    public func reset() async throws {
        _ = try await post("/_reset", Data())
    }

    /// Every request served so far.
    public func requests() async throws -> [Request] {
        let (data, _) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("_requests"))
        return try JSONDecoder().decode([Request].self, from: data)
    }

    private func post(_ path: String, _ body: Data) async throws -> Data {
        var request = URLRequest(url: baseURL.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = "POST"
        request.httpBody = body
        let (data, _) = try await URLSession.shared.data(for: request)
        return data
    }

    public struct FixtureError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        public init(message: String) {
            self.message = message
        }
    }
}
