public import BreezeCore
import FoundationEssentials

/// Open-Meteo's forecast API: the conditions now and a 7-day daily forecast (`GET /v1/forecast`).
public struct WeatherClient: Sendable {
    private let http: HTTPClient
    private let base: URL

    public init(http: HTTPClient, base: URL) {
        self.http = http
        self.base = base
    }

    static let current = [
        "temperature_2m", "apparent_temperature", "weather_code", "is_day", "relative_humidity_2m", "wind_speed_10m",
    ]
    static let daily = ["weather_code", "temperature_2m_max", "temperature_2m_min", "precipitation_probability_max"]
    static let forecastDays = 7

    public func fetch(_ coordinate: Coordinate) async throws(WebError) -> WeatherReport {
        let url = WebEndpoints.url(
            base, "/v1/forecast",
            [
                ("latitude", WebEndpoints.degrees(coordinate.latitude)),
                ("longitude", WebEndpoints.degrees(coordinate.longitude)),
                ("current", Self.current.joined(separator: ",")), ("daily", Self.daily.joined(separator: ",")),
                ("forecast_days", String(Self.forecastDays)), ("timezone", "auto"),
            ])
        let body = try OpenMeteoResponse.body(of: try await http.get(url))
        return try Self.report(from: body)
    }

    /// The report an answer's body holds, every number checked; a pure function, for fuzzing.
    ///
    /// The current temperature and weather code must be there; any other value may be `null` (missing). A weather
    /// code that WMO 4677 does not define, or arrays of different lengths, refuse the whole answer.
    public static func report(from body: Data) throws(WebError) -> WeatherReport {
        let payload = try OpenMeteoResponse.decode(Payload.self, from: body)
        let current = payload.current
        let time = try OpenMeteoResponse.time(current.time, utcOffset: try payload.checkedUTCOffset())
        guard let temperature = current.value("temperature_2m") else {
            throw WebError(.badPayload, "current.temperature_2m: missing")
        }
        guard let code = try weatherCode(current.value("weather_code"), field: "current.weather_code") else {
            throw WebError(.badPayload, "current.weather_code: missing")
        }
        let isDay = current.value("is_day").map { $0 != 0 } ?? true
        let now = WeatherReport.Current(
            temperature: Temperature(celsius: temperature),
            apparentTemperature: current.value("apparent_temperature").map(Temperature.init(celsius:)),
            code: code, isDay: isDay, humidity: current.value("relative_humidity_2m"),
            windSpeed: current.value("wind_speed_10m"))
        var days: [WeatherReport.Day] = []
        if let daily = payload.daily {
            let count = daily.time.count
            guard count <= PlausibleRange.forecastDays else {
                throw WebError(.badPayload, "daily: \(count) days, more than \(PlausibleRange.forecastDays)")
            }
            for (name, values) in [
                ("weather_code", daily.code), ("temperature_2m_max", daily.high),
                ("temperature_2m_min", daily.low), ("precipitation_probability_max", daily.precipitation),
            ]
            where values.map({ $0.count != count }) ?? false {
                throw WebError(.badPayload, "daily.\(name): \(values?.count ?? 0) values for \(count) days")
            }
            for (index, text) in daily.time.enumerated() {
                guard CivilDate(iso8601: Substring(text)) != nil else {
                    throw WebError(
                        .badPayload, "daily.time[\(index)]: \"\(PayloadLimits.capped(text))\" is not YYYY-MM-DD")
                }
                days.append(
                    WeatherReport.Day(
                        date: text, code: try weatherCode(daily.code?[index], field: "daily.weather_code[\(index)]"),
                        high: daily.high?[index].map(Temperature.init(celsius:)),
                        low: daily.low?[index].map(Temperature.init(celsius:)),
                        precipitationProbability: daily.precipitation?[index]))
            }
        }
        return try PayloadLimits.checked(WeatherReport(time: time, current: now, days: days), under: "")
    }

    private static func weatherCode(_ value: Double?, field: String) throws(WebError) -> WeatherCode? {
        guard let value else { return nil }
        guard let number = Int(exactly: value), let code = WeatherCode(rawValue: number) else {
            throw WebError(.badPayload, "\(field): \(value) is not a WMO weather code")
        }
        return code
    }

    private struct Payload: Decodable {
        var utcOffset: Double?
        var current: OpenMeteoCurrent
        var daily: Daily?

        enum CodingKeys: String, CodingKey {
            case utcOffset = "utc_offset_seconds"
            case current, daily
        }

        func checkedUTCOffset() throws(WebError) -> Int {
            try PayloadLimits.utcOffset(utcOffset)
        }

        struct Daily: Decodable {
            var time: [String]
            var code: [Double?]?
            var high: [Double?]?
            var low: [Double?]?
            var precipitation: [Double?]?

            enum CodingKeys: String, CodingKey {
                case time
                case code = "weather_code"
                case high = "temperature_2m_max"
                case low = "temperature_2m_min"
                case precipitation = "precipitation_probability_max"
            }
        }
    }
}

extension WeatherClient: DatasetClient {
    public static func make(http: HTTPClient, endpoints: WebEndpoints, googlePollenKey: String?) -> WeatherClient {
        WeatherClient(http: http, base: endpoints.forecast)
    }
}
