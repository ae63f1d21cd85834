public import BreezeCore
import FoundationEssentials

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
        let url = WebEndpoints.url(
            base, "/v1/air-quality",
            [
                ("latitude", WebEndpoints.degrees(coordinate.latitude)),
                ("longitude", WebEndpoints.degrees(coordinate.longitude)),
                ("current", Self.variables.joined(separator: ",")), ("timezone", "auto"),
            ])
        let body = try OpenMeteoResponse.body(of: try await http.get(url))
        return try Self.report(from: body)
    }

    /// The report an answer's body holds, every number checked (`PlausibleRange`); a pure function, for fuzzing.
    ///
    /// `null` is a missing value, as Open-Meteo documents it; a number out of range refuses the whole answer.
    public static func report(from body: Data) throws(WebError) -> AirQualityReport {
        let payload = try OpenMeteoResponse.decode(OpenMeteoCurrentPayload.self, from: body)
        let time = try OpenMeteoResponse.time(payload.current.time, utcOffset: try payload.checkedUTCOffset())
        let readings = Pollutant.allCases.map {
            PollutantReading(pollutant: $0, value: payload.current.value($0.rawValue))
        }
        let report = AirQualityReport(time: time, usAQI: payload.current.value("us_aqi"), readings: readings)
        return try PayloadLimits.checked(report, under: "current.")
    }
}

extension AirQualityClient: DatasetClient {
    public static func make(http: HTTPClient, endpoints: WebEndpoints, googlePollenKey: String?) -> AirQualityClient {
        AirQualityClient(http: http, base: endpoints.airQuality)
    }
}
