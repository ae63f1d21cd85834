import BreezeTestSupport
import Foundation

/// Keeps the loopback web fixture hostile: every `period` seconds it collects the requests served, forgets them and
/// its faults, and arms a new fault for every API path, each path a different kind, rotating, so that every fetch
/// breezed makes meets one. A fault is armed for a million requests, so it outlasts any burst between re-arms.
enum HostileWeb {
    static let paths = ["/v1/air-quality", "/v1/archive", "/v1/forecast", "/v1/search", "/reverse"]

    /// The fault kinds of `Tests/Fixtures/web-fixture.py`, with hostile parameters. Not 400: breezed waits an hour
    /// after a refused request, and the dataset would stop fetching for the rest of the run.
    static let kinds: [(name: String, arm: @Sendable (WebFixture, String) async throws -> Void)] = [
        ("endless-chunked", { try await $0.fault("endless-chunked", path: $1, count: 1_000_000) }),
        ("trickle 1 KiB/s", { try await $0.fault("trickle", path: $1, count: 1_000_000, size: 512 << 10, rate: 1_024) }),
        ("huge 64 MiB", { try await $0.fault("huge", path: $1, count: 1_000_000, size: 64 << 20) }),
        ("500", { try await $0.fault("500", path: $1, count: 1_000_000) }),
        ("numbers out of range", {
            try await $0.fault("values", path: $1, count: 1_000_000, top: ["utc_offset_seconds": 1e19, "latitude": 1e300],
                               current: ["us_aqi": 1e19, "pm2_5": -1e308, "interval": 9.5e18])
        }),
        ("chunked 50 MiB", { try await $0.fault("chunked", path: $1, count: 1_000_000, size: 50 << 20) }),
        ("429 retry-after 1", { try await $0.fault("429", path: $1, count: 1_000_000, retryAfter: 1) }),
        ("wrong-types", { try await $0.fault("wrong-types", path: $1, count: 1_000_000) }),
        ("invalid-json", { try await $0.fault("invalid-json", path: $1, count: 1_000_000) }),
        ("truncated", { try await $0.fault("truncated", path: $1, count: 1_000_000) }),
        ("stall 20 s", { try await $0.fault("stall", path: $1, count: 1_000_000, delay: 20) }),
        ("503 retry-after 1", { try await $0.fault("503", path: $1, count: 1_000_000, retryAfter: 1) }),
        ("empty", { try await $0.fault("empty", path: $1, count: 1_000_000) }),
    ]

    static func rotate(_ fixture: WebFixture, _ run: SoakRun, _ tally: Tally, period: Double = 2) async {
        var round = 0
        var armed: [String: String] = [:]
        var armedAt = Date().timeIntervalSince1970
        while true {
            do {
                let served = try await fixture.requests()
                try await fixture.reset()
                for request in served {
                    guard let kind = armed[request.path], request.start >= armedAt else {
                        tally.add("requests before a fault was armed")
                        continue
                    }
                    tally.add("\(request.path) got \(kind)")
                    tally.add("faults served")
                }
                if run.isOver { return }
                armed = [:]
                for (index, path) in paths.enumerated() {
                    let kind = kinds[(round + index) % kinds.count]
                    try await kind.arm(fixture, path)
                    armed[path] = kind.name
                }
                armedAt = Date().timeIntervalSince1970
                tally.add("re-arms")
            } catch {
                tally.add("fixture control failed")
                if run.isOver { return }
            }
            round += 1
            let until = ContinuousClock.now + .milliseconds(Int(period * 1000))
            while !run.isOver, ContinuousClock.now < until { try? await Task.sleep(for: .milliseconds(50)) }
        }
    }
}
