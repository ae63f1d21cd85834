public import BreezeCore
import Foundation

/// Open-Meteo's air-quality API: the current US AQI and six pollutants (`GET /v1/air-quality`).
public struct AirQualityClient: Sendable {
    private let http: HTTPClient
    private let base: URL

    public init(http: HTTPClient, base: URL) {
        self.http = http
        self.base = base
    }

    /// In the order Open-Meteo's documentation lists them.
    static let variables = [
        "us_aqi", "pm10", "pm2_5", "carbon_monoxide", "nitrogen_dioxide", "sulphur_dioxide", "ozone",
    ]

    public func fetch(_ coordinate: Coordinate) async throws(WebError) -> AirQualityReport {
        let url = WebEndpoints.url(base, "/v1/air-quality", [
            ("latitude", WebEndpoints.degrees(coordinate.latitude)),
            ("longitude", WebEndpoints.degrees(coordinate.longitude)),
            ("current", Self.variables.joined(separator: ",")), ("timezone", "auto"),
        ])
        let body = try OpenMeteoResponse.body(of: try await http.get(url))
        return try Self.report(from: body)
    }

    static func report(from body: Data) throws(WebError) -> AirQualityReport {
        let payload = try OpenMeteoResponse.decode(Payload.self, from: body)
        let time = try OpenMeteoResponse.time(payload.current.time, utcOffset: payload.utcOffset ?? 0)
        let readings = Pollutant.allCases.map { PollutantReading(pollutant: $0, value: payload.current.values[$0] ?? nil) }
        return AirQualityReport(time: time, usAQI: payload.current.usAQI, readings: readings)
    }

    private struct Payload: Decodable {
        var utcOffset: Int?
        var current: Current

        enum CodingKeys: String, CodingKey {
            case utcOffset = "utc_offset_seconds"
            case current
        }
    }

    private struct Current: Decodable {
        var time: String
        var usAQI: Double?
        var values: [Pollutant: Double?]

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            time = try container.decode(String.self, forKey: Key(stringValue: "time"))
            usAQI = try container.decodeIfPresent(Double.self, forKey: Key(stringValue: "us_aqi"))
            var values: [Pollutant: Double?] = [:]
            for pollutant in Pollutant.allCases {
                values[pollutant] = try container.decodeIfPresent(Double.self, forKey: Key(stringValue: pollutant.rawValue))
            }
            self.values = values
        }
    }
}
