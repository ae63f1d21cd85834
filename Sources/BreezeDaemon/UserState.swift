public import BreezeCore

/// What the user chose, kept across restarts: saved cities, the selected city (or "here"), the location switch,
/// and the last place named.
public struct UserState: Codable, Equatable, Sendable {
    /// The most saved cities a state holds: `saved add` beyond it is refused.
    public static let maximumSavedCities = 100
    /// The longest name, region or country a place may have, in Unicode scalars.
    public static let maximumNameLength = 200
    /// The longest country code, in Unicode scalars (ISO 3166-1 codes have two; online sources vary).
    public static let maximumCountryCodeLength = 8
    /// The largest population a place may claim: more than any city, far less than an absurd value.
    public static let maximumPopulation = 2_000_000_000
    /// The largest place id: GeoNames ids, which the protocol carries as JSON numbers, stay far below it.
    public static let maximumPlaceID = 1 << 53

    public var version = 1
    public var saved: [Place] = []
    /// nil: "here", the machine's own position.
    public var selected: Place?
    public var locationEnabled = true
    public var lastPlace: Place?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case version, saved, selected
        case locationEnabled = "location_enabled"
        case lastPlace = "last_place"
    }

    /// Throws, naming the field, when a value is not one breezed could have written: an unknown version, too many
    /// saved cities, or a place with a position off the Earth, an absurd population, an empty or enormous name.
    public func validate() throws(StateFileError) {
        guard version == 1 else { throw StateFileError(.invalid, "unknown version \(version)") }
        guard saved.count <= Self.maximumSavedCities else {
            throw StateFileError(.invalid, "saved: \(saved.count) cities, more than \(Self.maximumSavedCities)")
        }
        for (index, place) in saved.enumerated() { try Self.validate(place, "saved[\(index)]") }
        if let selected { try Self.validate(selected, "selected") }
        if let lastPlace { try Self.validate(lastPlace, "last_place") }
    }

    static func validate(_ place: Place, _ field: String) throws(StateFileError) {
        guard (1...maximumPlaceID).contains(place.id) else {
            throw StateFileError(.invalid, "\(field).id: \(place.id) is not a place id")
        }
        guard Coordinate(validatingLatitude: place.coordinate.latitude, longitude: place.coordinate.longitude) != nil
        else {
            throw StateFileError(
                .invalid,
                "\(field).coordinate: latitude \(place.coordinate.latitude), longitude "
                    + "\(place.coordinate.longitude) is not a position on the Earth")
        }
        guard (0...maximumPopulation).contains(place.population) else {
            throw StateFileError(
                .invalid, "\(field).population: \(place.population) is not from 0 to \(maximumPopulation)")
        }
        guard !place.name.isEmpty else { throw StateFileError(.invalid, "\(field).name is empty") }
        let texts = [("name", place.name), ("admin1", place.admin1 ?? ""), ("country", place.country)]
        for (name, text) in texts where text.unicodeScalars.count > maximumNameLength {
            throw StateFileError(.invalid, "\(field).\(name) is longer than \(maximumNameLength) characters")
        }
        guard place.countryCode.unicodeScalars.count <= maximumCountryCodeLength else {
            throw StateFileError(.invalid, "\(field).countryCode is longer than \(maximumCountryCodeLength) characters")
        }
    }
}
