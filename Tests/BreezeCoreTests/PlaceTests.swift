import BreezeCore
import Testing

@Suite struct PlaceTests {
    let adelboden = Place(
        id: 2661881, name: "Adelboden", admin1: "Bern", country: "Switzerland", countryCode: "CH",
        population: 3541, coordinate: Coordinate(latitude: 46.49, longitude: 7.56))

    @Test func displayNameIsCityAndCountry() {
        #expect(adelboden.displayName == "Adelboden, Switzerland")
    }

    @Test func qualifiedNameAddsTheRegion() {
        #expect(adelboden.qualifiedName == "Adelboden, Bern, Switzerland")
    }

    @Test func qualifiedNameSkipsAMissingOrRepeatedRegion() {
        var place = adelboden
        place.admin1 = nil
        #expect(place.qualifiedName == "Adelboden, Switzerland")
        place.name = "Tokyo"
        place.admin1 = "Tokyo"
        place.country = "Japan"
        #expect(place.qualifiedName == "Tokyo, Japan")
    }
}
