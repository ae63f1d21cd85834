/// A named populated place: what the daemon calls "where we are".
public struct Place: Hashable, Sendable, Codable {
    /// The GeoNames identifier, stable across index rebuilds.
    public var id: Int
    /// The place's own name, e.g. "Adelboden".
    public var name: String
    /// The first-level administrative division, e.g. "Bern"; nil where the source has none.
    public var admin1: String?
    /// The country's English name, e.g. "Switzerland".
    public var country: String
    /// ISO 3166-1 alpha-2 code, e.g. "CH".
    public var countryCode: String
    public var population: Int
    public var coordinate: Coordinate

    public init(
        id: Int, name: String, admin1: String?, country: String, countryCode: String, population: Int,
        coordinate: Coordinate
    ) {
        self.id = id
        self.name = name
        self.admin1 = admin1
        self.country = country
        self.countryCode = countryCode
        self.population = population
        self.coordinate = coordinate
    }

    /// "City, Country": how the daemon names where the machine is.
    public var displayName: String {
        country.isEmpty ? name : "\(name), \(country)"
    }

    /// "City, Region, Country": how a search result is told apart from its namesakes.
    public var qualifiedName: String {
        var parts = [name]
        if let admin1, !admin1.isEmpty, admin1 != name { parts.append(admin1) }
        if !country.isEmpty { parts.append(country) }
        return parts.joined(separator: ", ")
    }
}
