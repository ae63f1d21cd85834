/// A WMO weather interpretation code (WMO 4677, as Open-Meteo reports `weather_code`), in words and as an icon
/// for the day or the night.
public struct WeatherCode: Hashable, Sendable, Codable {
    public let rawValue: Int

    /// The code, if it is one Open-Meteo documents.
    public init?(rawValue: Int) {
        guard Self.descriptions[rawValue] != nil else { return nil }
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(Int.self)
        guard let code = WeatherCode(rawValue: value) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "weather code \(value)"))
        }
        self = code
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The condition in words: "Clear sky", "Light drizzle", "Thunderstorm with heavy hail".
    public var condition: String { Self.descriptions[rawValue]?.words ?? "Unknown" }

    /// A short name for icon sets and styling, with a day or night variant where the sky shows: `clear-day`,
    /// `partly-cloudy-night`, `rain`, `thunderstorm`.
    public func iconName(isDay: Bool) -> String {
        guard let entry = Self.descriptions[rawValue] else { return "unknown" }
        guard entry.hasNightVariant else { return entry.icon }
        return entry.icon + (isDay ? "-day" : "-night")
    }

    /// The icon as an emoji, for terminals and status bars.
    public func emoji(isDay: Bool) -> String {
        switch rawValue {
        case 0: isDay ? "☀️" : "🌙"
        case 1: isDay ? "🌤️" : "🌙"
        case 2: isDay ? "⛅" : "☁️"
        case 3: "☁️"
        case 45, 48: "🌫️"
        case 51, 53, 55, 56, 57: "🌦️"
        case 61, 63, 65, 66, 67, 80, 81, 82: "🌧️"
        case 71, 73, 75, 77, 85, 86: "🌨️"
        default: "⛈️"
        }
    }

    private struct Description {
        var words: String
        var icon: String
        var hasNightVariant = false
    }

    private static let descriptions: [Int: Description] = [
        0: .init(words: "Clear sky", icon: "clear", hasNightVariant: true),
        1: .init(words: "Mainly clear", icon: "mainly-clear", hasNightVariant: true),
        2: .init(words: "Partly cloudy", icon: "partly-cloudy", hasNightVariant: true),
        3: .init(words: "Overcast", icon: "overcast"),
        45: .init(words: "Fog", icon: "fog"),
        48: .init(words: "Depositing rime fog", icon: "fog"),
        51: .init(words: "Light drizzle", icon: "drizzle"),
        53: .init(words: "Drizzle", icon: "drizzle"),
        55: .init(words: "Dense drizzle", icon: "drizzle"),
        56: .init(words: "Light freezing drizzle", icon: "freezing-drizzle"),
        57: .init(words: "Dense freezing drizzle", icon: "freezing-drizzle"),
        61: .init(words: "Slight rain", icon: "rain"),
        63: .init(words: "Rain", icon: "rain"),
        65: .init(words: "Heavy rain", icon: "rain"),
        66: .init(words: "Light freezing rain", icon: "freezing-rain"),
        67: .init(words: "Heavy freezing rain", icon: "freezing-rain"),
        71: .init(words: "Slight snowfall", icon: "snow"),
        73: .init(words: "Snowfall", icon: "snow"),
        75: .init(words: "Heavy snowfall", icon: "snow"),
        77: .init(words: "Snow grains", icon: "snow"),
        80: .init(words: "Slight rain showers", icon: "showers", hasNightVariant: true),
        81: .init(words: "Rain showers", icon: "showers", hasNightVariant: true),
        82: .init(words: "Violent rain showers", icon: "showers", hasNightVariant: true),
        85: .init(words: "Slight snow showers", icon: "snow-showers", hasNightVariant: true),
        86: .init(words: "Heavy snow showers", icon: "snow-showers", hasNightVariant: true),
        95: .init(words: "Thunderstorm", icon: "thunderstorm"),
        96: .init(words: "Thunderstorm with slight hail", icon: "thunderstorm"),
        99: .init(words: "Thunderstorm with heavy hail", icon: "thunderstorm"),
    ]
}
