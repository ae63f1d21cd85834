import BreezeCore
import BreezeProtocol
import Testing

/// `WEATHER`: the conditions now and the days, temperatures in °C rounded to a tenth, the icon by day or night.
@Suite struct WeatherMessageTests {
    @Test func theConditionsNowAndEachDayGoOnTheWire() throws {
        let code = try #require(WeatherCode(rawValue: 2))
        let rain = try #require(WeatherCode(rawValue: 63))
        let report = WeatherReport(
            time: 1_780_000_000,
            current: .init(
                temperature: Temperature(celsius: 12.345), apparentTemperature: nil, code: code, isDay: false,
                humidity: 64.4, windSpeed: 9.96),
            days: [.init(date: "2026-06-01", code: rain, high: Temperature(celsius: 18.26), low: nil, precipitationProbability: 70)])
        let state = DatasetState(place: DatasetMessageTests.bern, status: .fresh, report: report, fetchedAt: 1_780_000_100)
        let message = try JSONValue.parse(DatasetMessage.message(state, now: 1_780_000_160).encoded())
        #expect(message["class"] == .string("WEATHER"))
        #expect(message["temperature_c"] == .number(12.3))
        #expect(message["apparent_c"] == .null)
        #expect(message["code"] == .number(2))
        #expect(message["condition"] == .string("Partly cloudy"))
        #expect(message["icon"] == .string("partly-cloudy-night"))
        #expect(message["is_day"] == .bool(false))
        #expect(message["humidity"] == .number(64))
        #expect(message["wind_kmh"] == .number(10))
        #expect(message["age_s"] == .number(60))
        guard case .array(let days)? = message["daily"], let day = days.first else {
            Issue.record("no daily")
            return
        }
        #expect(days.count == 1)
        #expect(day["date"] == .string("2026-06-01"))
        #expect(day["condition"] == .string("Rain"))
        #expect(day["max_c"] == .number(18.3))
        #expect(day["min_c"] == .null)
        #expect(day["precipitation_probability"] == .number(70))
    }
}
