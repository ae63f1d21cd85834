/// The ten cities the Breeze app offers before a person types anything.
public enum PopularCities {
    /// Each as a search query that names its country, so the famous city is the first match.
    public static let queries = [
        "New York, US", "Los Angeles, US", "Chicago, US", "London, GB", "Paris, FR",
        "Tokyo, JP", "Berlin, DE", "Toronto, CA", "Sydney, AU", "Dubai, AE",
    ]

    /// The popular cities resolved through the index, in the app's order; any the index lacks are left out.
    public static func resolve(with search: CitySearch) -> [CityMatch] {
        queries.compactMap { search.search($0, limit: 1).first }
    }
}
