import BreezeCore
import BreezeTestSupport
import BreezeWeb
import Foundation
import Testing

/// The weather from Open-Meteo's forecast API: the conditions now and 7 days, every value checked.
@Suite struct WeatherClientTests {
    static let zurich = WebClientTests.zurich

    static func body(_ current: String, daily: String = "") -> Data {
        var text = #"{"latitude":47.37,"longitude":8.55,"utc_offset_seconds":3600,"#
        text += #""current":{"time":"2026-11-30T10:00","interval":900,"# + current + "}"
        if !daily.isEmpty { text += #","daily":{"# + daily + "}" }
        return Data((text + "}").utf8)
    }

    static let current = #""temperature_2m":3.4,"apparent_temperature":0.2,"weather_code":3,"is_day":0,"# +
        #""relative_humidity_2m":87,"wind_speed_10m":7.6"#

    @Test func theFixturesForecastGivesTheConditionsNowAndSevenDays() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let report = try await WeatherClient(http: WebClientTests.http(), base: fixture.baseURL).fetch(Self.zurich)
        // The fixture: 4 + latitude/10 °C, code by latitude (95 at 47°), 81 %, 11.2 km/h.
        #expect(report.current.temperature == Temperature(celsius: 8.7))
        #expect(report.current.apparentTemperature == Temperature(celsius: 6.2))
        #expect(report.current.code.rawValue == 95)
        #expect(report.current.humidity == 81)
        #expect(report.current.windSpeed == 11.2)
        #expect(report.days.count == 7)
        #expect(report.days.prefix(3).map { $0.code?.rawValue } == [95, 45, 0])
        #expect(report.days.first?.precipitationProbability == 0)
        #expect(report.days.dropFirst().first?.precipitationProbability == 15)
        let query = try await fixture.requests().first { $0.path == "/v1/forecast" }?.query ?? ""
        #expect(query.contains("forecast_days=7"))
        #expect(query.contains("weather_code"))
    }

    @Test func aRealShapedAnswerIsReadWithNullsAsMissing() throws {
        let report = try WeatherClient.report(from: Self.body(
            Self.current,
            daily: #""time":["2026-11-30","2026-12-01"],"weather_code":[61,null],"temperature_2m_max":[5.1,null],"# +
                #""temperature_2m_min":[-0.4,1.2],"precipitation_probability_max":[80,null]"#))
        #expect(report.time == 1_796_032_800 - 3_600)
        #expect(report.current.code.condition == "Overcast")
        #expect(report.current.isDay == false)
        #expect(report.days.map(\.date) == ["2026-11-30", "2026-12-01"])
        #expect(report.days.map { $0.code?.condition } == ["Slight rain", nil])
        #expect(report.days.map(\.high) == [Temperature(celsius: 5.1), nil])
        #expect(report.days.map(\.precipitationProbability) == [80, nil])
    }

    @Test(arguments: [
        (#""temperature_2m":1e19,"weather_code":0"#, "temperature_2m"),
        (#""temperature_2m":20,"weather_code":4"#, "weather_code"),
        (#""temperature_2m":20,"weather_code":2.5"#, "weather_code"),
        (#""temperature_2m":20,"weather_code":1e300"#, "weather_code"),
        (#""temperature_2m":20,"weather_code":0,"relative_humidity_2m":101"#, "relative_humidity_2m"),
        (#""temperature_2m":20,"weather_code":0,"wind_speed_10m":-1"#, "wind_speed_10m"),
        (#""weather_code":0"#, "temperature_2m"),
        (#""temperature_2m":20"#, "weather_code"),
    ])
    func aHostileCurrentValueIsABadPayloadNamingIt(current: String, field: String) {
        PayloadValidationTests.expectBadPayload(naming: field) { () throws(WebError) in
            _ = try WeatherClient.report(from: Self.body(current))
        }
    }

    @Test(arguments: [
        (#""time":["2026-11-30","2026-12-01"],"weather_code":[0]"#, "weather_code"),
        (#""time":["2026-11-30"],"temperature_2m_min":[-1000]"#, "temperature_2m_min"),
        (#""time":["2026-11-30"],"precipitation_probability_max":[250]"#, "precipitation_probability_max"),
        (#""time":["30.11.2026"]"#, "daily.time"),
        (WeatherClientTests.seventeenDays, "daily"),
    ])
    func aHostileForecastIsABadPayloadNamingIt(daily: String, field: String) {
        PayloadValidationTests.expectBadPayload(naming: field) { () throws(WebError) in
            _ = try WeatherClient.report(from: Self.body(Self.current, daily: daily))
        }
    }

    /// A forecast of more days than asked for. Built here, not in the arguments: Swift 6.0.3 as Debian builds it
    /// (with assertions) stops on an interpolation inside a raw string there.
    static let seventeenDays = #""time":["# + Array(repeating: #""2026-11-30""#, count: 17).joined(separator: ",") + "]"
}
