import BreezeTestSupport
import Foundation
import Testing

/// breezectl's exit statuses for `refresh` and the dataset subcommands, against breezed and the loopback web.
@Suite
struct ExitStatusTests {
    static func online(_ fixture: WebFixture) async throws -> BreezedProcess {
        try await BreezedProcess([
            "--no-gpsd", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString, "--fallback-city", "Bern",
        ])
    }

    static func state(_ result: BreezedProcess.Result) -> String? {
        object(result.output)["state"] as? String
    }

    @Test func refreshWaitsForEveryDatasetAndNamesTheOnesThatFailed() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let daemon = try await Self.online(fixture)
        _ = try await daemon.ctl(["weather", "--json"], timeout: 30) { Self.state($0) == "fresh" }

        let refreshed = try await daemon.ctl(["--timeout", "30", "refresh"])
        #expect(refreshed.status == 0, "\(refreshed.output)\(refreshed.errors)")
        for name in ["AIR", "POLLEN", "CLIMATE", "WEATHER"] {
            #expect(refreshed.output.contains("\(name)"), "\(refreshed.output)")
        }
        // Alike answers share a line.
        #expect(refreshed.output.hasPrefix("AIR, POLLEN, CLIMATE, WEATHER fresh"), "\(refreshed.output)")
        #expect(!refreshed.output.contains("Refreshing"), "no progress line off a terminal")

        // Climate's own request for today (past years are remembered from the first fetch).
        try await fixture.fault("500", path: "/v1/forecast", match: "forecast_days=1&", count: 100)
        let failed = try await daemon.ctl(["--timeout", "30", "refresh"])
        #expect(failed.status == 75, "\(failed.output)\(failed.errors)")
        #expect(failed.errors.contains("the refresh failed for CLIMATE (server-error"), "\(failed.errors)")
        #expect(!failed.errors.contains("AIR") && !failed.errors.contains("WEATHER"), "\(failed.errors)")
        // Its data was fresh: it stays fresh, with the failure beside it.
        #expect(failed.output.contains("CLIMATE  fresh: server-error"), "\(failed.output)")

        let json = try await daemon.ctl(["--timeout", "30", "--json", "refresh"])
        #expect(json.status == 75)
        let datasets = object(json.output)["datasets"] as? [[String: Any]] ?? []
        #expect(datasets.map { $0["class"] as? String } == ["AIR", "POLLEN", "CLIMATE", "WEATHER"], "\(json.output)")
        #expect(datasets.first { $0["class"] as? String == "AIR" }?["state"] as? String == "fresh", "\(json.output)")

        try await fixture.reset()
        try await fixture.fault("stall", path: "/v1/forecast", count: 1, delay: 8)
        let slow = try await daemon.ctl(["--timeout", "3", "refresh"])
        #expect(slow.status == 69, "\(slow.output)\(slow.errors)")
        #expect(slow.errors.contains("the refresh did not finish within 3 s"), "\(slow.errors)")
        await daemon.stop()
        #expect(await daemon.exitStatus() == 0, "a refresh still waiting does not hold up the stop")
    }

    @Test func aDatasetExitsZeroOnlyWithData() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("500", path: "/v1/air-quality", match: "us_aqi", count: 1_000)
        let daemon = try await Self.online(fixture)
        let failed = try await daemon.ctl(["air"], timeout: 30) { $0.output.contains("failed") }
        #expect(failed.status == 75, "\(failed.output)\(failed.errors)")
        #expect(failed.output.contains("Air quality"), "it still shows the dataset: \(failed.output)")
        #expect(failed.errors.contains("no air-quality data: the fetch failed"), "\(failed.errors)")
        #expect(failed.errors.contains("server-error"), "the reason: \(failed.errors)")

        let weather = try await daemon.ctl(["weather", "--json"], timeout: 30) { Self.state($0) == "fresh" }
        #expect(weather.status == 0, "\(weather.errors)")

        try await fixture.reset()
        _ = try await daemon.ctl(["--timeout", "30", "refresh"])
        let air = try await daemon.ctl(["air"], timeout: 30) { $0.status == 0 }
        #expect(air.status == 0, "\(air.output)\(air.errors)")
        #expect(air.output.contains("AQI 26"), "\(air.output)")
        #expect(air.errors.isEmpty)
        await daemon.stop()
    }

    @Test func offlineTheDatasetsAndRefreshExit69() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        for subcommand in ["air", "pollen", "climate", "weather"] {
            let result = try await daemon.ctl([subcommand])
            #expect(result.status == 69, "\(subcommand): \(result.output)\(result.errors)")
            #expect(result.errors.contains("web requests are off"), "\(subcommand): \(result.errors)")
            #expect(!result.output.isEmpty, "\(subcommand) still shows its state")
        }
        let refresh = try await daemon.ctl(["refresh"])
        #expect(refresh.status == 69, "\(refresh.errors)")
        #expect(try await daemon.ctl(["status"]).status == 0)
        await daemon.stop()
    }
}
