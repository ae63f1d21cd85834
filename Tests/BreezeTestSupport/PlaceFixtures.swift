import BreezeCore

extension Place {
    /// Bern as the committed places index holds it: the fallback and the selected city of many tests.
    public static let bern = Place(
        id: 2_661_552, name: "Bern", admin1: "Bern", country: "Switzerland", countryCode: "CH", population: 121_631,
        coordinate: Coordinate(latitude: 46.94809, longitude: 7.44744))
}
