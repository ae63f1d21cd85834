public import BreezeCore
import FoundationEssentials

/// Open-Meteo's geocoding API: city search by name (`GET /v1/search`), to complement the offline index.
public struct GeocodingClient: Sendable {
    private let http: HTTPClient
    private let base: URL

    public init(http: HTTPClient, base: URL) {
        self.http = http
        self.base = base
    }

    /// Whether a search started now would be sent (see `HTTPClient.canStartNow`).
    public var canSearchNow: Bool { http.canStartNow }

    /// Up to `count` places matching `name`; none when the API has no match (it then leaves out `results`).
    public func search(_ name: String, count: Int = 10) async throws(WebError) -> [Place] {
        let url = WebEndpoints.url(
            base, "/v1/search",
            [
                ("name", name), ("count", String(count)), ("language", "en"), ("format", "json"),
            ])
        let body = try OpenMeteoResponse.body(of: try await http.get(url))
        return try Self.places(from: body)
    }

    /// The places an answer's body holds, ids and populations checked (`PayloadLimits`), names capped; a result
    /// without a valid coordinate is left out. A pure function, for fuzzing.
    public static func places(from body: Data) throws(WebError) -> [Place] {
        let payload = try OpenMeteoResponse.decode(Payload.self, from: body)
        var places: [Place] = []
        for (index, result) in (payload.results ?? []).prefix(PayloadLimits.searchResults).enumerated() {
            let id = try PayloadLimits.integer(result.id, in: PayloadLimits.placeID, field: "results[\(index)].id")
            let population = try PayloadLimits.integer(
                result.population ?? 0, in: PayloadLimits.population, field: "results[\(index)].population")
            guard let coordinate = Coordinate(validatingLatitude: result.latitude, longitude: result.longitude) else {
                continue
            }
            places.append(
                Place(
                    id: id, name: PayloadLimits.capped(result.name), admin1: result.admin1.map(PayloadLimits.capped),
                    country: PayloadLimits.capped(result.country ?? ""),
                    countryCode: PayloadLimits.capped(result.countryCode?.uppercased() ?? ""), population: population,
                    coordinate: coordinate))
        }
        return places
    }

    private struct Payload: Decodable {
        var results: [Result]?
    }

    private struct Result: Decodable {
        var id: Double
        var name: String
        var latitude: Double
        var longitude: Double
        var country: String?
        var countryCode: String?
        var admin1: String?
        var population: Double?

        enum CodingKeys: String, CodingKey {
            case id, name, latitude, longitude, country, admin1, population
            case countryCode = "country_code"
        }
    }
}
