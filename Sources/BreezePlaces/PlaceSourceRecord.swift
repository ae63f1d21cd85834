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
    /// GeoNames' feature code ("PPL", "PPLA2", "PPLX" for a section of a populated place…); empty when unknown.
    public var featureCode: String
    /// GeoNames' admin1…admin4 codes as a source with feature codes gives them (admin1 first; an empty string
    /// where the place has no code at that level); empty when unknown. With the country they say which
    /// administrative divisions a place lies in, and so when two places belong to different ones.
    public var administrativeCodes: [String]

    public init(
        id: Int, name: String, latitude: Double, longitude: Double, countryCode: String, admin1Code: String = "",
        population: Int, alternateNames: [String] = [], featureCode: String = "", administrativeCodes: [String] = []
    ) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.countryCode = countryCode
        self.admin1Code = admin1Code
        self.population = population
        self.alternateNames = alternateNames
        self.featureCode = featureCode
        self.administrativeCodes = administrativeCodes
    }

    /// True when the place's codes are known.
    public var isCoded: Bool { !featureCode.isEmpty }

    /// True when administrative codes put the two places in different divisions: different countries, or a level
    /// where both have a code and the codes differ. False when either place's codes are unknown.
    public func isToldApart(from other: PlaceSourceRecord) -> Bool {
        guard isCoded, other.isCoded else { return false }
        if countryCode != other.countryCode { return true }
        for (mine, theirs) in zip(administrativeCodes, other.administrativeCodes)
        where !mine.isEmpty && !theirs.isEmpty && mine != theirs {
            return true
        }
        return false
    }

    /// True when both places carry the same administrative codes down to an admin3 or admin4 code: the same
    /// municipality in the countries that code municipalities there (Swiss Gemeinden, French communes, US county
    /// subdivisions…).
    public func sharesMunicipality(with other: PlaceSourceRecord) -> Bool {
        guard isCoded, other.isCoded, countryCode == other.countryCode,
            administrativeCodes == other.administrativeCodes, administrativeCodes.count >= 4
        else { return false }
        return !administrativeCodes[2].isEmpty || !administrativeCodes[3].isEmpty
    }
}
