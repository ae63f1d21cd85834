import BreezeTestSupport
import Foundation
import Testing

/// `breezectl weather PLACE` and the other looks at a place that is not breezed's own: a real breezed and the
/// loopback web; the place shown, the watchers and the cache seen from outside.
@Suite(.serialized)
struct LookTests {
    static let paris = 2_988_507

    /// The lines a watcher connected since before got, up to the answer to a `version` sent now: every update
    /// breezed published before that answer.
    private static func watched(_ client: LineClient) -> [String] {
        guard client.send(#"{"command":"version","id":99}"#) else { return [] }
        var lines: [String] = []
        while let line = client.line(), !line.contains("\"id\":99") { lines.append(line) }
        return lines
    }

    @Test func aLookShowsAnotherPlacesDataAndLeavesBreezedsOwnAsItWas() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let daemon = try await ExitStatusTests.online(fixture)
        _ = try await daemon.ctl(["air", "--json"], timeout: 30) { ExitStatusTests.state($0) == "fresh" }
        let socket = daemon.socket
        let watcher = await onDedicatedThread { () -> LineClient? in
            guard let client = LineClient(path: socket), client.send(#"{"command":"watch","id":1}"#) else { return nil }
            _ = client.reply(id: 1)
            return client
        }
        let client = try #require(watcher)
        _ = await onDedicatedThread { Self.watched(client) }  // the snapshot

        let weather = try await daemon.ctl(["--units", "c", "weather", "paris"])
        #expect(weather.status == 0, "\(weather.output)\(weather.errors)")
        #expect(weather.output.hasPrefix("Paris, France · looked up; breezed's own place is unchanged"),
                "\(weather.output)")
        #expect(weather.output.contains("Weather (fresh, "), "\(weather.output)")
        #expect(!weather.output.contains("Air quality"), "the weather alone: \(weather.output)")

        // The JSON: the PLACE, then the dataset's object, for Paris.
        let json = try await daemon.ctl(["--json", "air", "paris"])
        let lines = json.output.split(separator: "\n").map { object(String($0)) }
        #expect(lines.count == 2, "\(json.output)")
        #expect(lines.first?["class"] as? String == "PLACE" && lines.first?["geoname_id"] as? Int == Self.paris)
        #expect(lines.last?["class"] as? String == "AIR" && lines.last?["state"] as? String == "fresh", "\(json.output)")
        #expect(lines.last?["place"] as? String == "Paris, France", "\(json.output)")

        // Fetched once: the second look at Paris's air is the cache's.
        let parisAir = { try await fixture.requests().filter { $0.path == "/v1/air-quality" && $0.query.contains("latitude=48.8") } }
        #expect(try await parisAir().count == 1)
        let again = try await daemon.ctl(["--json", "air", String(Self.paris)])
        #expect(again.output.contains("\"state\":\"fresh\""), "\(again.output)")
        #expect(try await parisAir().count == 1, "a fresh cache answers the second look")

        // Every dataset, for `status`.
        let status = try await daemon.ctl(["status", "new", "york"])
        #expect(status.status == 0, "\(status.errors)")
        for heading in ["New York City, United States · looked up", "Air quality", "Pollen", "Climate", "Weather"] {
            #expect(status.output.contains(heading), "\(heading): \(status.output)")
        }

        // breezed's own place, its watchers and its status bar never saw Paris or New York.
        let published = await onDedicatedThread { Self.watched(client) }
        #expect(!published.contains { $0.contains("Paris") || $0.contains("New York") }, "\(published)")
        let shown = try await daemon.ctl(["--json", "where"])
        #expect(object(shown.output)["city"] as? String == "Bern", "\(shown.output)")
        let ownAir = try await daemon.ctl(["--json", "air"])
        #expect(object(ownAir.output)["place"] as? String == "Bern, Switzerland", "\(ownAir.output)")
        let bar = try await daemon.ctl(["watch", "--once", "--format", "{city}"])
        #expect(bar.output == "Bern\n", "\(bar.output)")
        await daemon.stop()
    }

    @Test func aLookThatCannotBeAnsweredSaysWhyAndExitsAsTheDatasetDoes() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let daemon = try await ExitStatusTests.online(fixture)
        // Every pollen request fails: the look answers with the failure, exit 75, as `pollen` does.
        try await fixture.fault("500", path: "/v1/air-quality", match: "pollen", count: 1_000)
        let pollen = try await daemon.ctl(["pollen", "vienna"])
        #expect(pollen.status == 75, "\(pollen.output)\(pollen.errors)")
        #expect(pollen.errors.contains("no pollen data: the fetch failed: server-error"), "\(pollen.errors)")
        #expect(pollen.output.contains("Vienna, Austria · looked up"), "\(pollen.output)")

        // A web that does not answer in time: breezed answers by its limit, with what it has.
        try await fixture.fault("stall", path: "/v1/forecast", count: 10, delay: 20)
        let slow = try await daemon.ctl(["--timeout", "15", "--json", "weather", "lisbon"])
        #expect(slow.status == 75, "\(slow.output)\(slow.errors)")
        #expect(slow.output.contains("timeout: no answer within 8 s"), "\(slow.output)")

        let unknown = try await daemon.ctl(["weather", "xqzvwkj"])
        #expect(unknown.status == 1, "\(unknown.errors)")
        #expect(unknown.errors.contains("no city matches \"xqzvwkj\""), "\(unknown.errors)")
        await daemon.stop()

        // Offline, a look fetches nothing: 69, as the datasets do.
        let offline = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let air = try await offline.ctl(["air", "paris"])
        #expect(air.status == 69, "\(air.output)\(air.errors)")
        #expect(air.errors.contains("web requests are off"), "\(air.errors)")
        await offline.stop()
    }
}
