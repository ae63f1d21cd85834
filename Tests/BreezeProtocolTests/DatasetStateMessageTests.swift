import BreezeCore
import BreezeProtocol
import Testing

/// `AIR`, `POLLEN` and `CLIMATE` as sent: each state's name and reason, the place, the time fetched, the age, and
/// the values, member by member and in order.
@Suite struct DatasetStateMessageTests {
    static let bern = Place(
        id: 2661552, name: "Bern", admin1: "Bern", country: "Switzerland", countryCode: "CH", population: 121631,
        coordinate: Coordinate(latitude: 46.94809, longitude: 7.44744))

    static func keys(_ value: JSONValue) -> [String] {
        guard case .object(let members) = value else { return [] }
        return members.map(\.0)
    }

    @Test(arguments: [
        (DatasetStatus.loading, "loading", String?.none), (.fresh, "fresh", nil), (.offline, "offline", nil),
        (.stale(reason: nil), "stale", nil), (.stale(reason: "timed out"), "stale", "timed out"),
        (.unavailable(reason: "no pollen data here"), "unavailable", "no pollen data here"),
        (.failed(reason: "transport: refused"), "failed", "transport: refused"),
    ])
    func theHeaderNamesTheStateAndItsReason(status: DatasetStatus, name: String, reason: String?) {
        let state = DatasetState<AirQualityReport>(place: Self.bern, status: status, report: nil, fetchedAt: nil)
        let message = DatasetMessage.message(state, now: 1_780_000_000)
        #expect(message["class"] == .string("AIR"))
        #expect(message["state"] == .string(name))
        #expect(message["reason"] == reason.map(JSONValue.string))
        #expect(message["place"] == .string("Bern, Switzerland"))
        #expect(message["place_id"] == .number(2_661_552))
        #expect(message["fetched"] == .null)
        #expect(message["age_s"] == .null)
        #expect(message["us_aqi"] == .null)
        let expected = ["class", "state"] + (reason == nil ? [] : ["reason"]) + ["place", "place_id", "fetched", "age_s", "us_aqi", "pollutants"]
        #expect(Self.keys(message) == expected)
    }

    @Test func theAgeIsCountedFromTheFetchAndNeverNegative() {
        let report = AirQualityReport(time: 1_780_000_000, usAQI: 42.4, readings: [])
        let state = DatasetState(place: Self.bern, status: .fresh, report: report, fetchedAt: 1_780_000_100)
        let message = DatasetMessage.message(state, now: 1_780_000_190.6)
        #expect(message["fetched"] == .string("2026-05-28T20:28:20.000Z"))
        #expect(message["time"] == .string("2026-05-28T20:26:40.000Z"))
        #expect(message["age_s"] == .number(91))
        #expect(DatasetMessage.message(state, now: 1_780_000_000)["age_s"] == .number(0))
    }

    @Test func airCarriesTheRoundedIndexItsLabelAndEachPollutant() {
        let report = AirQualityReport(
            time: 1_780_000_000, usAQI: 42.4,
            readings: [PollutantReading(pollutant: .pm25, value: 9.0), PollutantReading(pollutant: .ozone, value: nil),
                       PollutantReading(pollutant: .pm10, value: 60)])
        let state = DatasetState(place: Self.bern, status: .fresh, report: report, fetchedAt: 1_780_000_100)
        let message = DatasetMessage.message(state, now: 1_780_000_100)
        #expect(message["us_aqi"] == .number(42))
        #expect(message["category"] == .string("good"))
        #expect(message["label"] == .string("Good"))
        #expect(message["emoji"] == .string("🙂"))
        #expect(message["color"] == .string("#00E400"))
        #expect(message["pollutants"] == .array([
            .object([("code", .string("pm2_5")), ("symbol", .string("PM2.5")), ("value", .number(9)), ("unit", .string("µg/m³")), ("status", .string("good"))]),
            .object([("code", .string("ozone")), ("symbol", .string("O₃")), ("value", .null), ("unit", .string("µg/m³")), ("status", .null)]),
            .object([("code", .string("pm10")), ("symbol", .string("PM10")), ("value", .number(60)), ("unit", .string("µg/m³")), ("status", .string("moderate"))]),
        ]))
        #expect(Self.keys(message) == ["class", "state", "place", "place_id", "fetched", "age_s", "time", "us_aqi", "category",
                                       "label", "emoji", "color", "summary", "tips", "pollutants"])
    }

    @Test func pollenCarriesTheProviderTheHighestAndEachEntry() {
        let report = PollenReport(provider: .google, time: 1_780_000_000, entries: [
            PollenReport.Entry(code: "GRASS", name: "Grass", kind: .type, level: .moderate),
            PollenReport.Entry(code: "BIRCH", name: "Birch", kind: .plant, level: nil, grains: 3.5),
        ])
        let state = DatasetState(place: Self.bern, status: .stale(reason: "timed out"), report: report, fetchedAt: 1_780_000_000)
        let message = DatasetMessage.message(state, now: 1_780_003_600)
        #expect(message["class"] == .string("POLLEN"))
        #expect(message["state"] == .string("stale"))
        #expect(message["reason"] == .string("timed out"))
        #expect(message["age_s"] == .number(3_600))
        #expect(message["provider"] == .string("google"))
        #expect(message["highest"] == .number(3))
        #expect(message["entries"] == .array([
            .object([("code", .string("GRASS")), ("name", .string("Grass")), ("kind", .string("type")),
                     ("level", .number(3)), ("level_name", .string("Moderate"))]),
            .object([("code", .string("BIRCH")), ("name", .string("Birch")), ("kind", .string("plant")),
                     ("level", .null), ("level_name", .null), ("grains", .number(3.5))]),
        ]))
    }

    @Test func pollenWithoutAReportHasTheHeaderAndANullHighest() {
        let state = DatasetState<PollenReport>(place: Self.bern, status: .loading, report: nil, fetchedAt: nil)
        #expect(Self.keys(DatasetMessage.message(state, now: 0)) == ["class", "state", "place", "place_id", "fetched", "age_s", "highest"])
    }

    @Test func climateCarriesTheDayThePointsAndTheChangeToATenth() {
        let report = ClimateReport(month: 7, day: 4, points: [
            ClimateReport.Point(year: 2020, maximum: Temperature(celsius: 25.26)),
            ClimateReport.Point(year: 1980, maximum: Temperature(celsius: 21.04)),
        ])
        let state = DatasetState(place: Self.bern, status: .fresh, report: report, fetchedAt: 1_780_000_000)
        let message = DatasetMessage.message(state, now: 1_780_000_000)
        #expect(message["class"] == .string("CLIMATE"))
        #expect(message["month"] == .number(7))
        #expect(message["day"] == .number(4))
        #expect(message["points"] == .array([
            .object([("year", .number(1980)), ("max_c", .number(21))]),
            .object([("year", .number(2020)), ("max_c", .number(25.3))]),
        ]))
        #expect(message["change_c"] == .number(4.2))
    }

    @Test func climateWithOnePointHasNoChange() {
        let report = ClimateReport(month: 1, day: 31, points: [ClimateReport.Point(year: 2026, maximum: Temperature(celsius: -2))])
        let state = DatasetState(place: Self.bern, status: .fresh, report: report, fetchedAt: nil)
        let message = DatasetMessage.message(state, now: 0)
        #expect(message["change_c"] == nil)
        #expect(message["points"] == .array([.object([("year", .number(2026)), ("max_c", .number(-2))])]))
    }

    @Test(arguments: Dataset.allCases)
    func anEmptyDatasetHasItsClassStateAndReason(dataset: Dataset) {
        // Then the keys its Home Assistant templates read, empty.
        let empty = (dataset.reportType as? any DatasetMessageBody.Type)?.membersWithoutReport ?? []
        #expect(DatasetMessage.empty(dataset, status: .offline) == .object([
            ("class", .string(dataset.rawValue.uppercased())), ("state", .string("offline")),
        ] + empty))
        #expect(DatasetMessage.empty(dataset, status: .failed(reason: "dns"), reason: "no place yet") == .object([
            ("class", .string(dataset.rawValue.uppercased())), ("state", .string("failed")), ("reason", .string("no place yet")),
        ] + empty))
        #expect(DatasetMessage.empty(dataset, status: .unavailable(reason: "not here")) == .object([
            ("class", .string(dataset.rawValue.uppercased())), ("state", .string("unavailable")), ("reason", .string("not here")),
        ] + empty))
    }

    @Test func theClassNamesAreTheProtocols() {
        #expect(Dataset.allCases.map(\.className) == ["AIR", "POLLEN", "CLIMATE", "WEATHER"])
    }
}
