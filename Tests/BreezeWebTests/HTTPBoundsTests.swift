import BreezeCore
import BreezeTestSupport
import BreezeWeb
import Foundation
import Testing

/// The HTTP client's bounds against hostile servers: a body that never ends, one trickled too slowly to finish,
/// one far over the cap. Each fails within its bound and leaves the process's memory where it was.
///
/// Serialized: each test reads the process's resident memory, which a neighbour's transfer would disturb.
@Suite(.serialized) struct HTTPBoundsTests {
    static let zurich = Coordinate(latitude: 47.3667, longitude: 8.55)
    /// Growth of resident memory a refused transfer may leave behind: the body cap (1 MiB) and the HTTP client's
    /// buffers, with room for the allocator's noise on a shared machine; far under the gigabytes seen unbounded.
    static let memoryAllowance = 64 << 20

    static func http(deadline: Double) -> HTTPClient {
        HTTPClient(userAgent: "breezed-tests/1", timeout: 20, deadline: deadline, maximumBodySize: 1 << 20)
    }

    /// The fetch's error, or nil when it did not end within `seconds` (then it is cancelled).
    static func error(within seconds: Double, _ fetch: @escaping @Sendable () async throws(WebError) -> AirQualityReport) async -> WebError?? {
        await withTaskGroup(of: WebError??.self) { group in
            group.addTask {
                do throws(WebError) {
                    _ = try await fetch()
                    return .some(nil)
                } catch {
                    return .some(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    static func resident() -> Int {
        ProcessMemory.residentBytes()
    }

    @Test func anEndlessChunkedBodyIsRefusedAsTooLargeAndItsMemoryGivenBack() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("endless-chunked", path: "/v1/air-quality")
        let client = AirQualityClient(http: Self.http(deadline: 30), base: fixture.baseURL)
        let before = Self.resident()
        let started = ContinuousClock.now
        let outcome = await Self.error(within: 15) { () throws(WebError) in try await client.fetch(Self.zurich) }
        let elapsed = ContinuousClock.now - started
        let grown = Self.resident() - before
        print("endless chunked body: failed after \(elapsed), resident memory grew \(grown >> 20) MiB")
        #expect(outcome != nil, "still running after 15 s")
        #expect(outcome??.code == .tooLarge, "\(String(describing: outcome))")
        #expect(grown < Self.memoryAllowance, "grew \(grown >> 20) MiB")
    }

    @Test func aLargeChunkedBodyIsRefusedAndItsMemoryGivenBack() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("chunked", path: "/v1/air-quality", size: 50 << 20)
        let client = AirQualityClient(http: Self.http(deadline: 30), base: fixture.baseURL)
        let before = Self.resident()
        let outcome = await Self.error(within: 15) { () throws(WebError) in try await client.fetch(Self.zurich) }
        let grown = Self.resident() - before
        print("50 MB chunked body: resident memory grew \(grown >> 20) MiB")
        #expect(outcome??.code == .tooLarge, "\(String(describing: outcome))")
        #expect(grown < Self.memoryAllowance, "grew \(grown >> 20) MiB")
        // The client is not left broken: the next request succeeds.
        #expect(try await client.fetch(Self.zurich).usAQI != nil)
    }

    @Test func aTrickledBodyFailsAtTheDeadline() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        // 512 KiB at 1 KiB/s: never idle long enough for the idle timeout, done only after eight minutes.
        try await fixture.fault("trickle", path: "/v1/air-quality", size: 512 << 10, rate: 1_024)
        let client = AirQualityClient(http: Self.http(deadline: 2), base: fixture.baseURL)
        let started = ContinuousClock.now
        let outcome = await Self.error(within: 20) { () throws(WebError) in try await client.fetch(Self.zurich) }
        let elapsed = ContinuousClock.now - started
        print("trickled body: failed after \(elapsed)")
        #expect(outcome??.code == .timeout, "\(String(describing: outcome))")
        #expect(outcome??.reason.contains("2 s") == true, "\(String(describing: outcome))")
        #expect(elapsed < .seconds(10))
    }

    @Test func aDeadlineOfOneRequestDoesNotCutTheNextShort() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("trickle", path: "/v1/air-quality", size: 512 << 10, rate: 1_024)
        let client = AirQualityClient(http: Self.http(deadline: 2), base: fixture.baseURL)
        _ = await Self.error(within: 20) { () throws(WebError) in try await client.fetch(Self.zurich) }
        #expect(try await client.fetch(Self.zurich).usAQI != nil)
    }
}
