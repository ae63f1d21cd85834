import BreezeCore
import BreezePlaces
import BreezeTestSupport

/// A small made-up world for tests that need no real data: a metropolis with city sections, a suburb town, a
/// village, two cities with alternate names, and an island far from everything.
enum SyntheticPlaces {
    static let metropolis = PlaceSourceRecord(
        id: 1, name: "Metropolis", latitude: 40.0, longitude: 10.0, countryCode: "AA", admin1Code: "01",
        population: 2_000_000, alternateNames: ["Metropole", "Métropole", "Mega City"])
    /// 2 km from the centre, 12 000 people: a section of the metropolis.
    static let oldTown = PlaceSourceRecord(
        id: 2, name: "Old Town", latitude: 40.018, longitude: 10.0, countryCode: "AA", admin1Code: "01",
        population: 12_000)
    /// 30 km away, a real town of its own.
    static let suburb = PlaceSourceRecord(
        id: 3, name: "Suburbia", latitude: 40.27, longitude: 10.0, countryCode: "AA", admin1Code: "01",
        population: 8_000)
    static let village = PlaceSourceRecord(
        id: 4, name: "Little Hamlet", latitude: 41.0, longitude: 11.0, countryCode: "AA", admin1Code: "02",
        population: 1_200)
    static let island = PlaceSourceRecord(
        id: 5, name: "Far Island", latitude: -30.0, longitude: -140.0, countryCode: "BB", population: 1_500)
    /// A small town whose own name starts like the metropolis's alternate name.
    static let metropoleTown = PlaceSourceRecord(
        id: 6, name: "Metropoleville", latitude: 45.0, longitude: 5.0, countryCode: "BB", admin1Code: "07",
        population: 5_000)
    /// Two Springfields, in different regions.
    static let springfieldNorth = PlaceSourceRecord(
        id: 7, name: "Springfield", latitude: 50.0, longitude: 20.0, countryCode: "AA", admin1Code: "02",
        population: 30_000)
    static let springfieldSouth = PlaceSourceRecord(
        id: 8, name: "Springfield", latitude: 35.0, longitude: 20.0, countryCode: "AA", admin1Code: "01",
        population: 150_000)

    static let all = [metropolis, oldTown, suburb, village, island, metropoleTown, springfieldNorth, springfieldSouth]

    static let builder = PlacesIndexBuilder(
        countryNames: ["AA": "Atlantis", "BB": "Borduria"],
        admin1Names: ["AA.01": "Central", "AA.02": "Northern Hills", "BB.07": "Coast"],
        alternateNamesMinimumPopulation: 100_000)

    static func bytes() -> [UInt8] {
        builder.build(all).bytes
    }

    static func index() throws -> PlacesIndex {
        try PlacesIndex(bytes: bytes(), name: "synthetic")
    }

    /// A grid of many places, for checking the tree search against the scan on an index with a deep tree.
    static func grid(count: Int, seed: UInt64) -> [PlaceSourceRecord] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { id in
            let population = Int(pow(10, Double.random(in: 2.5...6.5, using: &random)))
            return PlaceSourceRecord(
                id: id + 1, name: "Place \(id)", latitude: Double.random(in: 44...48, using: &random),
                longitude: Double.random(in: 5...12, using: &random), countryCode: "AA", population: population)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
