/// One populated place as the index builder takes it in (from GeoNames, or a test's own list).
public struct PlaceSourceRecord: Hashable, Sendable {
    public var id: Int
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// ISO 3166-1 alpha-2.
    public var countryCode: String
    /// GeoNames' admin1 code within the country ("ME" for Maine, "11" for Île-de-France); empty for none.
    public var admin1Code: String
    public var population: Int
    public var alternateNames: [String]

    public init(
        id: Int, name: String, latitude: Double, longitude: Double, countryCode: String, admin1Code: String = "",
        population: Int, alternateNames: [String] = []
    ) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.countryCode = countryCode
        self.admin1Code = admin1Code
        self.population = population
        self.alternateNames = alternateNames
    }
}
