import FoundationEssentials

/// Where each web API lives. Every base URL is configurable: for a self-hosted Open-Meteo, and for tests.
public struct WebEndpoints: Hashable, Sendable {
    public var airQuality = URL(string: "https://air-quality-api.open-meteo.com")!
    public var archive = URL(string: "https://archive-api.open-meteo.com")!
    public var forecast = URL(string: "https://api.open-meteo.com")!
    public var geocoding = URL(string: "https://geocoding-api.open-meteo.com")!
    public var googlePollen = URL(string: "https://pollen.googleapis.com")!
    public var nominatim = URL(string: "https://nominatim.openstreetmap.org")!

    public init() {}

    /// Every API at one base URL, paths unchanged (`--api-base`).
    public init(base: URL) {
        airQuality = base
        archive = base
        forecast = base
        geocoding = base
        googlePollen = base
        nominatim = base
    }

    /// `base` + `path` + the query, percent-encoded.
    static func url(_ base: URL, _ path: String, _ query: [(String, String)]) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        let prefix = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = prefix + path
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        // URLComponents leaves "+" and "," alone; Open-Meteo reads both literally, but a "+" in a city name must
        // not turn into a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacing("+", with: "%2B")
        return components.url!
    }

    /// A coordinate as Open-Meteo and Nominatim take it: at most 4 decimals (~10 m) is all they use.
    static func degrees(_ value: Double) -> String {
        String((value * 10_000).rounded() / 10_000)
    }
}
