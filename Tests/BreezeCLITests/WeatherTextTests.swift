import BreezeCLI
import BreezeCore
import Testing

/// `breezectl weather` and the weather's `watch --format` tokens, in the reader's unit.
@Suite struct WeatherTextTests {
    static let line = #"{"class":"WEATHER","state":"fresh","place":"Bern, Switzerland","place_id":2661552,"# +
        #""fetched":"2026-06-01T10:00:00Z","age_s":60,"time":"2026-06-01T10:00:00Z","temperature_c":21.5,"# +
        #""apparent_c":20,"code":2,"condition":"Partly cloudy","icon":"partly-cloudy-day","emoji":"⛅","is_day":true,"# +
        #""humidity":55,"wind_kmh":12,"daily":[{"date":"2026-06-01","code":63,"condition":"Rain","icon":"rain","# +
        #""emoji":"🌧️","max_c":23.4,"min_c":11,"precipitation_probability":70}]}"#

    @Test func theWeatherIsShownNowAndByDay() {
        let text = ReplyText.render(Array(Self.line.utf8), command: "weather")
        #expect(text.contains("21.5°C Partly cloudy"), "\(text)")
        #expect(text.contains("feels like 20.0°C"), "\(text)")
        #expect(text.contains("humidity 55% · wind 12 km/h"), "\(text)")
        #expect(text.contains("  Mon 1 Jun  🌧️  11.0°C … 23.4°C  70% rain  Rain"), "\(text)")
    }

    /// The forecast names its days and keeps its columns in line, whatever each day's numbers: widths differ, a day
    /// has no rain chance, an emoji is missing.
    @Test func theForecastNamesItsDaysInColumns() {
        let days = #"[{"date":"2026-12-07","emoji":"🌫️","max_c":12.3,"min_c":2.8,"precipitation_probability":0,"condition":"Fog"},"#
            + #"{"date":"2026-12-10","emoji":"☁️","max_c":-12.5,"min_c":-20,"precipitation_probability":100,"condition":"Overcast"},"#
            + #"{"date":"2026-12-11","max_c":1,"min_c":0,"condition":"Slight rain"},"#
            + #"{"date":"2027-02-30","emoji":"☀️","max_c":5,"min_c":1,"precipitation_probability":5,"condition":"Clear sky"}]"#
        let line = #"{"class":"WEATHER","state":"fresh","temperature_c":3,"daily":"# + days + "}"
        let lines = ReplyText.render(Array(line.utf8), command: "weather").split(separator: "\n").suffix(4).map(String.init)
        #expect(lines == [
            "  Mon 7 Dec   🌫️    2.8°C …  12.3°C    0% rain  Fog",
            "  Thu 10 Dec  ☁️  -20.0°C … -12.5°C  100% rain  Overcast",
            "  Fri 11 Dec        0.0°C …   1.0°C             Slight rain",
            "  2027-02-30  ☀️    1.0°C …   5.0°C    5% rain  Clear sky",
        ], "\(lines)")
    }

    /// °F goes with mph, feet and miles; °C with km/h, metres and kilometres.
    @Test func fahrenheitGoesWithMilesPerHour() {
        let text = ReplyText.render(Array(Self.line.utf8), command: "weather", unit: .fahrenheit)
        #expect(text.contains("70.7°F Partly cloudy"), "\(text)")
        #expect(text.contains("humidity 55% · wind 7 mph"), "\(text)")
        #expect(!text.contains("km/h"), "\(text)")
    }

    @Test func formatTokensGiveTheTemperatureConditionIconAndTodaysRange() {
        let text = ReplyText.render(
            Array(Self.line.utf8), command: "watch", format: "{icon} {temp} {condition} {high}/{low} {icon_name}")
        #expect(text == "⛅ 21.5°C Partly cloudy 23.4°C/11.0°C partly-cloudy-day\n")
    }

    @Test func theJSONIsTheDaemonsObject() {
        let text = ReplyText.render(Array(Self.line.utf8), command: "weather", json: true)
        #expect(text.contains(#""class":"WEATHER""#))
        #expect(text.contains(#""temperature_c":21.5"#))
    }
}
