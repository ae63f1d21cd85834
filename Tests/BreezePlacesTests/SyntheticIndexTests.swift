import BreezeCore
import BreezePlaces
import BreezeTestSupport
import Foundation
import Testing

/// The index's behaviour on a made-up world: no real data needed.
@Suite struct SyntheticIndexTests {
    let index: PlacesIndex
    let geocoder: ReverseGeocoder
    let search: CitySearch

    init() throws {
        index = try SyntheticPlaces.index()
        geocoder = ReverseGeocoder(index: index)
        search = CitySearch(index: index)
    }

    @Test func readsBackEveryPlace() throws {
        #expect(index.count == SyntheticPlaces.all.count)
        let metropolis = try #require(index.placeIndex(geonameID: 1).flatMap(index.place(at:)))
        #expect(metropolis.id == 1)
        #expect(metropolis.name == "Metropolis")
        #expect(metropolis.admin1 == "Central")
        #expect(metropolis.country == "Atlantis")
        #expect(metropolis.countryCode == "AA")
        #expect(metropolis.population == 2_000_000)
        #expect(metropolis.coordinate == Coordinate(latitude: 40, longitude: 10))
        #expect(index.place(at: index.count) == nil)
        #expect(index.place(at: -1) == nil)
        #expect(index.placeIndex(geonameID: 8).flatMap(index.place(at:))?.population == 150_000)
        #expect(index.placeIndex(geonameID: 99) == nil)
        #expect(index.placeIndex(geonameID: 5).flatMap(index.place(at:))?.admin1 == nil)
        #expect(Set((0..<index.count).compactMap { index.place(at: $0)?.id }) == Set(SyntheticPlaces.all.map(\.id)))
    }

    @Test func aCitySectionNamesItsCity() throws {
        let match = try #require(geocoder.place(for: Coordinate(latitude: 40.0181, longitude: 10.0)))
        #expect(match.place.name == "Metropolis")
        #expect(abs(match.distance - 2_012) < 20)
        let oldTown = try #require(index.placeIndex(geonameID: SyntheticPlaces.oldTown.id))
        #expect(geocoder.isSection(oldTown))
        #expect(geocoder.sectionCity(oldTown) == match.index)
        #expect((0..<index.count).filter(geocoder.isSection).count == 1)
    }

    @Test func aPointInsideATownNamesTheTown() throws {
        let inside = Coordinate(latitude: 40.27, longitude: 10.0).destination(distance: 600, bearing: 200)
        #expect(geocoder.place(for: inside)?.place.name == "Suburbia")
    }

    @Test func betweenPlacesTheBiggerReachesFurther() throws {
        // 12 km from the metropolis, 18 km from the suburb: the metropolis.
        let between = Coordinate(latitude: 40.108, longitude: 10.0)
        #expect(geocoder.place(for: between)?.place.name == "Metropolis")
    }

    @Test func farFromEverythingNamesTheNearestWithItsDistance() throws {
        let sea = Coordinate(latitude: -20, longitude: -150)
        let match = try #require(geocoder.place(for: sea))
        #expect(match.place.name == "Far Island")
        #expect(match.distance > 1_000_000)
    }

    @Test func treeSearchAgreesWithTheScanOnADeepTree() async throws {
        let records = SyntheticPlaces.grid(count: 5_000, seed: 7)
        let grid = try PlacesIndex(bytes: SyntheticPlaces.builder.build(records).bytes)
        let geocoder = ReverseGeocoder(index: grid)
        let mismatches = await onDedicatedThread {
            var random = SplitMix64(seed: 11)
            var mismatches: [Coordinate] = []
            for _ in 0..<3_000 {
                let point = Coordinate(
                    latitude: Double.random(in: 43...49, using: &random),
                    longitude: Double.random(in: 4...13, using: &random))
                if geocoder.place(for: point)?.index != geocoder.placeByScanning(for: point)?.index {
                    mismatches.append(point)
                }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func anEmptyIndexNamesNothingAndFindsNothing() throws {
        let empty = try PlacesIndex(bytes: SyntheticPlaces.builder.build([]).bytes)
        #expect(ReverseGeocoder(index: empty).place(for: Coordinate(latitude: 1, longitude: 2)) == nil)
        #expect(CitySearch(index: empty).search("metro").isEmpty)
    }

    @Test func ownNamesOutrankAlternatePrefixes() {
        // Both own names start with "metropol": the bigger first.
        #expect(search.search("metropol").map(\.place.name) == ["Metropolis", "Metropoleville"])
        #expect(search.search("metropolev").map(\.place.name) == ["Metropoleville"])
    }

    @Test func alternateNamesFindTheirCityAfterOwnNames() throws {
        // "Metropole" is an alternate name of Metropolis (2,000,000); Metropoleville (5,000) starts with it too.
        let found = search.search("Métropole")
        #expect(found.map(\.place.name) == ["Metropoleville", "Metropolis"])
        #expect(found.map(\.matchedAlternateName) == [false, true])
        #expect(found.map(\.matchedName) == [nil, "Metropole"])
        #expect(search.search("mega c").first?.matchedName == "Mega City")
    }

    /// A place whose own and alternate names both start with the query is ranked by its better match, whichever of
    /// its names the search meets first.
    @Test func aPlaceMatchedTwiceKeepsItsBestMatch() throws {
        let towns = [
            // The alternate name sorts before the own name: met first, with a tenth of the weight.
            PlaceSourceRecord(
                id: 1, name: "Zeta Town", latitude: 10, longitude: 10, countryCode: "AA", population: 200_000,
                alternateNames: ["Zeta"]),
            PlaceSourceRecord(id: 2, name: "Zetaville", latitude: 11, longitude: 11, countryCode: "AA", population: 50_000),
            // The own name sorts first: the alternate met after it must not lower it.
            PlaceSourceRecord(
                id: 3, name: "Alpha", latitude: 12, longitude: 12, countryCode: "AA", population: 200_000,
                alternateNames: ["Alphaberg"]),
            PlaceSourceRecord(id: 4, name: "Alphatown", latitude: 13, longitude: 13, countryCode: "AA", population: 50_000),
        ]
        let search = CitySearch(index: try PlacesIndex(bytes: SyntheticPlaces.builder.build(towns).bytes))
        let zeta = search.search("zet")
        #expect(zeta.map(\.place.id) == [1, 2])
        #expect(zeta.map(\.matchedAlternateName) == [false, false])
        let alpha = search.search("alph")
        #expect(alpha.map(\.place.id) == [3, 4])
        #expect(alpha.map(\.matchedAlternateName) == [false, false])
        #expect(search.search("zeta").map(\.place.id) == [1, 2])
    }

    /// Ranking an index again gives what the builder made, from this format or the one before (whose rankings were
    /// made otherwise: here only its version differs).
    @Test func rankingAgainGivesWhatTheBuilderMakes() throws {
        let built = SyntheticPlaces.builder.build(SyntheticPlaces.all).bytes
        #expect(try PlacesIndexBuilder.rankedAgain(built) == built)
        var former = built
        former[8] = 3
        #expect(try PlacesIndexBuilder.rankedAgain(former) == built)
        former[8] = 2
        #expect(throws: PlacesIndexError.self) { try PlacesIndexBuilder.rankedAgain(former) }
    }

    @Test func biggerCitiesComeFirst() {
        #expect(search.search("springfield").map(\.place.id) == [8, 7])
    }

    @Test func aCommaNarrowsByRegionOrCountry() {
        #expect(search.search("springfield, northern").map(\.place.id) == [7])
        #expect(search.search("Springfield, Central, Atlantis").map(\.place.id) == [8])
        #expect(search.search("springfield, aa").map(\.place.id) == [8, 7])
        #expect(search.search("springfield, borduria").isEmpty)
        #expect(search.search("metro, bb").map(\.place.name) == ["Metropoleville"])
    }

    @Test(arguments: ["", "m", " m ", "qqqq", "zz", "métropolexyz"])
    func shortOrUnknownQueriesFindNothing(query: String) {
        #expect(search.search(query).isEmpty)
    }

    /// Many matches, many of them scored alike: the first `limit` are the best, highest population first and the
    /// index's order between equals, for every limit, as sorting them all would give.
    @Test func theBestAreKeptInOrderForEveryLimit() throws {
        var random = SplitMix64(seed: 41)
        let populations = [1_000, 2_000, 5_000, 20_000]
        let towns = (0..<150).map { id in
            PlaceSourceRecord(
                id: id + 1, name: "Town \(id)", latitude: Double.random(in: 44...48, using: &random),
                longitude: Double.random(in: 5...12, using: &random), countryCode: "AA",
                population: populations[Int(random.next() % UInt64(populations.count))])
        }
        let index = try PlacesIndex(bytes: SyntheticPlaces.builder.build(towns).bytes, name: "towns")
        let search = CitySearch(index: index)
        let all = search.search("town", limit: 1_000)
        #expect(all.count == towns.count)
        let sorted = all.sorted {
            $0.place.population != $1.place.population ? $0.place.population > $1.place.population : $0.index < $1.index
        }
        #expect(all.map(\.index) == sorted.map(\.index))
        for limit in [1, 2, 9, 10, 24, 25, 26, 40, 149, 150, 151] {
            #expect(search.search("town", limit: limit).map(\.index) == Array(sorted.prefix(limit).map(\.index)), "\(limit)")
        }
    }

    @Test func limitIsHonoured() {
        #expect(search.search("springfield", limit: 1).count == 1)
        #expect(search.search("springfield", limit: 0).isEmpty)
    }

    @Test func metadataRecordsTheNamingRule() {
        #expect(index.metadataJSON.contains(PlaceNamingRule.signature))
    }
}
