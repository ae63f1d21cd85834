import BreezeCore
import Foundation
import Testing

/// WMO 4677 weather codes as words and icons, by day and by night.
@Suite struct WeatherCodeTests {
    @Test func documentedCodesHaveWordsAndIcons() throws {
        let cases: [(Int, String, String, String)] = [
            (0, "Clear sky", "clear-day", "clear-night"),
            (2, "Partly cloudy", "partly-cloudy-day", "partly-cloudy-night"),
            (3, "Overcast", "overcast", "overcast"),
            (45, "Fog", "fog", "fog"),
            (55, "Dense drizzle", "drizzle", "drizzle"),
            (63, "Rain", "rain", "rain"),
            (81, "Rain showers", "showers-day", "showers-night"),
            (75, "Heavy snowfall", "snow", "snow"),
            (99, "Thunderstorm with heavy hail", "thunderstorm", "thunderstorm"),
        ]
        for (raw, words, day, night) in cases {
            let code = try #require(WeatherCode(rawValue: raw))
            #expect(code.condition == words)
            #expect(code.iconName(isDay: true) == day)
            #expect(code.iconName(isDay: false) == night)
        }
        #expect(WeatherCode(rawValue: 0)?.emoji(isDay: true) == "☀️")
        #expect(WeatherCode(rawValue: 0)?.emoji(isDay: false) == "🌙")
    }

    @Test(arguments: [-1, 4, 19, 50, 100, Int.max])
    func undocumentedCodesAreRefused(raw: Int) {
        #expect(WeatherCode(rawValue: raw) == nil)
    }

    @Test func aCachedCodeThatIsNotDocumentedDoesNotDecode() throws {
        #expect(try JSONValue.decode([WeatherCode].self, from: Array("[61]".utf8)).first?.rawValue == 61)
        #expect(throws: DecodingError.self) { try JSONValue.decode([WeatherCode].self, from: Array("[62]".utf8)) }
    }
}
