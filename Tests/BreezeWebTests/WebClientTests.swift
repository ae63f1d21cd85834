import BreezeCore
import BreezeTestSupport
import BreezeWeb
import Foundation
import Testing

/// The web clients against the loopback fixture: real-shaped payloads, and every fault the fixture can play.
@Suite struct WebClientTests {
    static let zurich = Coordinate(latitude: 47.3667, longitude: 8.55)
    static let sydney = Coordinate(latitude: -33.8678, longitude: 151.2073)

    static func http(timeout: Double = 5, budget: RequestBudget? = nil) -> HTTPClient {
        HTTPClient(userAgent: "breezed-tests/1 (loopback)", timeout: timeout, maximumBodySize: 1 << 20, budget: budget)
    }

    @Test func airQualityReadsEveryPollutantAndKeepsNullsAsMissing() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let report = try await AirQualityClient(http: Self.http(), base: fixture.baseURL).fetch(Self.zurich)
        #expect(report.usAQI == 27)
        #expect(report.label == .good)
        #expect(report.reading(.pm25)?.value == 5.3)
        #expect(report.reading(.pm25)?.status == .good)
        #expect(report.reading(.carbonMonoxide)?.value == 181)
        #expect(report.reading(.sulphurDioxide)?.value == nil)
        #expect(report.reading(.sulphurDioxide)?.status == nil)
        // The fixture's time is this hour, local to the place (UTC+1 at 8.55° E), converted back to UTC.
        let now = Date().timeIntervalSince1970
        #expect(abs(report.time - now) < 3_700, "time \(report.time) vs now \(now)")
        let requests = try await fixture.requests()
        #expect(requests.count == 1)
        #expect(requests[0].query.contains("current=us_aqi,pm10,pm2_5,carbon_monoxide,nitrogen_dioxide,sulphur_dioxide,ozone"))
        #expect(requests[0].query.contains("timezone=auto"))
    }

    static let faults: [(kind: String, code: WebError.Code, reason: String)] = [
        ("400", .badRequest, "Parameter 'latitude' is out of range"),
        ("429", .rateLimited, "Minutely API request limit exceeded"),
        ("500", .serverError, "server error"),
        ("503", .unavailable, "Service temporarily overloaded"),
        ("invalid-json", .badPayload, "not valid JSON"),
        ("wrong-types", .badPayload, "current.us_aqi: expected a number"),
        ("empty", .badPayload, "empty body"),
        ("huge", .tooLarge, "exceeded 1048576 bytes"),
    ]

    @Test(arguments: faults)
    func eachFaultBecomesATypedErrorWithItsReason(fault: (kind: String, code: WebError.Code, reason: String)) async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault(fault.kind, path: "/v1/air-quality", retryAfter: 7)
        let client = AirQualityClient(http: Self.http(), base: fixture.baseURL)
        let error = await thrownError(WebError.self) { try await client.fetch(Self.zurich) }
        #expect(error?.code == fault.code, "\(String(describing: error))")
        #expect(error?.reason.contains(fault.reason) == true, "\(String(describing: error))")
        if fault.kind == "429" || fault.kind == "503" { #expect(error?.retryAfter == 7) }
        // The fault was for one request: the next one succeeds.
        let report = try await client.fetch(Self.zurich)
        #expect(report.usAQI != nil)
    }

    @Test func aTruncatedBodyIsAnErrorNotAReport() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("truncated", path: "/v1/air-quality")
        let client = AirQualityClient(http: Self.http(timeout: 2), base: fixture.baseURL)
        let error = await thrownError(WebError.self) { try await client.fetch(Self.zurich) }
        #expect([.transport, .timeout, .badPayload].contains(error?.code), "\(String(describing: error))")
    }

    @Test func aStalledResponseTimesOut() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("stall", path: "/v1/air-quality", delay: 30)
        let client = AirQualityClient(http: Self.http(timeout: 1), base: fixture.baseURL)
        let started = ContinuousClock.now
        let error = await thrownError(WebError.self) { try await client.fetch(Self.zurich) }
        #expect(error?.code == .timeout, "\(String(describing: error))")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func aCancelledFetchStopsAtOnce() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("stall", path: "/v1/air-quality", delay: 30)
        let client = AirQualityClient(http: Self.http(timeout: 20), base: fixture.baseURL)
        let task = Task { try await client.fetch(Self.zurich) }
        // Cancelled once the request is at the server (and stalled there), not at a guessed moment.
        #expect(try await eventually(timeout: 20) { try await !fixture.requests().isEmpty }, "the request reached the fixture")
        let started = ContinuousClock.now
        task.cancel()
        await #expect(throws: WebError.self) { try await task.value }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func pollenInEuropeHasLevelsAndElsewhereIsNotAvailable() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let client = PollenClient(http: Self.http(), openMeteo: fixture.baseURL, google: fixture.baseURL, googleKey: nil)
        let europe = try await client.fetch(Self.zurich)
        #expect(europe.provider == .openMeteo)
        #expect(europe.isAvailable)
        let birch = try #require(europe.entries.first { $0.code == "BIRCH" })
        #expect(birch.grains == 12.4)
        #expect(birch.level == .low)
        #expect(europe.entries.first { $0.code == "GRASS" }?.level == .moderate)
        #expect(europe.entries.first { $0.code == "ALDER" }?.level == PollenLevel.none)
        #expect(europe.entries.first { $0.code == "OLIVE" }?.level == nil)

        let australia = try await client.fetch(Self.sydney)
        #expect(!australia.isAvailable)
        #expect(australia.entries.count == 6)
        #expect(australia.entries.allSatisfy { $0.level == nil })
    }

    @Test func googlePollenGivesTypesAndPlantsAndNoLevelOutOfSeason() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let client = PollenClient(http: Self.http(), openMeteo: fixture.baseURL, google: fixture.baseURL, googleKey: "k+1")
        let north = try await client.fetch(Self.zurich)
        #expect(north.provider == .google)
        #expect(north.entries.filter { $0.kind == .type }.map(\.code) == ["GRASS", "TREE", "WEED"])
        #expect(north.entries.first { $0.code == "TREE" }?.level == .moderate)
        #expect(north.entries.first { $0.code == "BIRCH" }?.kind == .plant)
        #expect(north.highest == .moderate)
        // Out of season the fixture leaves `indexInfo` out, as Google does.
        let south = try await client.fetch(Self.sydney)
        #expect(!south.isAvailable)
        #expect(south.entries.count == 5)
        let requests = try await fixture.requests()
        #expect(requests.allSatisfy { $0.path == "/v1/forecast:lookup" && $0.query.contains("key=k+1") })
    }

    @Test func climateAsksForOneDayAPastDecadeAndRemembersThem() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let client = ClimateClient(http: Self.http(), archive: fixture.baseURL, forecast: fixture.baseURL)
        let report = try await client.fetch(Self.zurich)
        let year = report.points.last!.year
        #expect(report.points.map(\.year) == ClimateReport.years(endingIn: year))
        #expect(report.points.map(\.year).prefix(5) == [1980, 1990, 2000, 2010, 2020])
        // The fixture's values rise 0.04 °C a year: the change is positive.
        let change = try #require(report.change)
        #expect(change.to.maximum > change.from.maximum)
        let requests = try await fixture.requests()
        #expect(requests.filter { $0.path == "/v1/forecast" }.count == 1)
        let archive = requests.filter { $0.path == "/v1/archive" }
        #expect(archive.count == 5)
        for request in archive {
            let start = request.query.range(of: "start_date=")!.upperBound
            let date = request.query[start...].prefix(10)
            #expect(request.query.contains("end_date=\(date)"), "one day per request: \(request.query)")
        }
        // Past values do not change: asking again costs only today's request.
        _ = try await client.fetch(Self.zurich)
        #expect(try await fixture.requests().count == 7)
    }

    @Test func climateSurvivesAWrongTypeWithAnError() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("wrong-types", path: "/v1/archive", match: "start_date=1990")
        let client = ClimateClient(http: Self.http(), archive: fixture.baseURL, forecast: fixture.baseURL)
        let error = await thrownError(WebError.self) { try await client.fetch(Self.zurich) }
        #expect(error?.code == .badPayload)
        #expect(error?.reason.contains("temperature_2m_max") == true, "\(String(describing: error))")
    }

    @Test func citySearchReadsResultsAndAMissingListAsNoMatch() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let client = GeocodingClient(http: Self.http(), base: fixture.baseURL)
        let places = try await client.search("Zu")
        #expect(places.map(\.name) == ["Zurich", "Zug"])
        #expect(places[0].countryCode == "CH")
        #expect(places[0].admin1 == "Zurich")
        #expect(places[0].id == 2657896)
        #expect(try await client.search("Qqqq").isEmpty)
    }

    @Test func nominatimIsAskedAtMostOnceASecondAndCached() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let client = NominatimClient(http: Self.http(), base: fixture.baseURL)
        let first = try await client.place(at: Self.zurich)
        #expect(first?.displayName == "Fixture Town, Fixture Land")
        #expect(first?.countryCode == "FX")
        _ = try await client.place(at: Self.sydney)
        _ = try await client.place(at: Coordinate(latitude: 47.36671, longitude: 8.55002))  // ~5 m away: cached
        let requests = try await fixture.requests()
        #expect(requests.count == 2)
        #expect(requests[1].start - requests[0].start >= 0.99, "\(requests[1].start - requests[0].start) s apart")
        #expect(requests[0].query.contains("format=jsonv2") && requests[0].query.contains("zoom=10"))
    }

    @Test func theBudgetStopsRequestsOverItsCapAndSaysWhenTheNextMayGo() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let budget = RequestBudget(limits: .init(perMinute: 3, perHour: 100, perDay: 1_000))
        let client = AirQualityClient(http: Self.http(budget: budget), base: fixture.baseURL)
        for _ in 0..<3 { _ = try await client.fetch(Self.zurich) }
        let error = await thrownError(WebError.self) { try await client.fetch(Self.zurich) }
        #expect(error?.code == .overBudget)
        #expect((error?.retryAfter ?? 0) > 50)
        #expect(budget.total == 3)
        #expect(try await fixture.requests().count == 3)
    }
}
