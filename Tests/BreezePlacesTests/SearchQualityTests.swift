import BreezeCore
import BreezePlaces
import Dispatch
import Synchronization
import Testing

/// Search answers a person expects from the committed GeoNames index: one row per city, names in every script,
/// room for a typing slip.
@Suite struct SearchQualityTests {
    let search: CitySearch

    init() throws {
        search = CitySearch(index: try PlacesIndex(path: PlacesIndexLocation.sourceTreeIndex))
    }

    @Test func sectionsOfACityCollapseUnderTheCity() throws {
        let results = search.search("zur")
        let names = results.map(\.place.name)
        #expect(names.first == "Zürich")
        #expect(names.filter { $0.hasPrefix("Zürich") }.count == 1, "\(names)")
        #expect(results.count == 10, "\(names)")
    }

    @Test func aQueryNamingASectionStillFindsTheSection() throws {
        let first = try #require(search.search("zurich kreis 1").first)
        #expect(first.place.name.hasPrefix("Zürich (Kreis 1"), "got \(first.place.qualifiedName)")
    }

    @Test(arguments: [
        ("東京", "Tokyo", "JP"), ("北京", "Beijing", "CN"), ("Москва", "Moscow", "RU"), ("도쿄", "Tokyo", "JP"),
        ("Μόσχα", "Moscow", "RU"), ("القاهرة", "Cairo", "EG"), ("מוסקבה", "Moscow", "RU"),
    ])
    func namesInEveryScriptFindTheirCity(query: String, name: String, country: String) throws {
        let first = try #require(search.search(query).first, "nothing for \(query)")
        #expect(first.place.name == name && first.place.countryCode == country, "got \(first.place.qualifiedName)")
    }

    @Test(arguments: [
        ("zurrich", "Zürich", "CH"), ("muenchen", "Munich", "DE"), ("sao paolo", "São Paulo", "BR"),
        ("amsterdma", "Amsterdam", "NL"), ("barcelna", "Barcelona", "ES"), ("edinbrugh", "Edinburgh", "GB"),
        ("sao pualo", "São Paulo", "BR"), ("munchne", "Munich", "DE"),
        // A letter changed or added near the start, where the letters tried are those the index's filter lets through.
        ("bsrcelona", "Barcelona", "ES"), ("amdterdam", "Amsterdam", "NL"), ("edimburgh", "Edinburgh", "GB"),
        ("barrcelona", "Barcelona", "ES"), ("amstterdam", "Amsterdam", "NL"),
    ])
    func oneTypingSlipStillFindsTheCity(query: String, name: String, country: String) throws {
        let first = try #require(search.search(query).first, "nothing for \(query)")
        #expect(first.place.name == name && first.place.countryCode == country, "got \(first.place.qualifiedName)")
    }

    /// The first slip searches of a newly opened index, from several threads at once (the daemon's socket thread and
    /// others), find what one thread finds on another newly opened index.
    @Test func slipSearchesFromSeveralThreadsAtOnceAgree() throws {
        let queries = ["zurrich", "bsrcelona", "amdterdam", "edimburgh", "sao pualo", "munchne", "qqqqqq"]
        let serial = CitySearch(index: try PlacesIndex(path: PlacesIndexLocation.sourceTreeIndex))
        let expected = queries.map { serial.search($0).map(\.place.id) }
        let shared = CitySearch(index: try PlacesIndex(path: PlacesIndexLocation.sourceTreeIndex))
        let found = Mutex<[[[Int]]]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let mine = queries.map { shared.search($0).map(\.place.id) }
            found.withLock { $0.append(mine) }
        }
        let answers = found.withLock { $0 }
        #expect(answers.count == 4)
        for answer in answers { #expect(answer == expected) }
        #expect(expected.dropLast().allSatisfy { !$0.isEmpty })
    }

    @Test func shortQueriesGetNoTypoTolerance() {
        // Four letters: "zurh" is one slip from "zurch" (nothing) and from "zuri…" (Zürich); it must stay a miss.
        #expect(search.search("zurh").isEmpty)
    }

    @Test func newYFindsNewYorkFirst() throws {
        let results = search.search("new y")
        #expect(results.first?.place.name == "New York City", "\(results.map(\.place.qualifiedName))")
        #expect(results.first?.place.countryCode == "US")
    }
}

/// The same rules on a made-up world, where the answer does not depend on GeoNames.
@Suite struct SyntheticSearchQualityTests {
    static let metropolis = PlaceSourceRecord(
        id: 1, name: "Metropolis", latitude: 40.0, longitude: 10.0, countryCode: "AA", admin1Code: "01",
        population: 2_000_000, featureCode: "PPLA", administrativeCodes: ["01", "", "", ""])
    static let districts = (1...4).map { number in
        PlaceSourceRecord(
            id: 10 + number, name: "Metropolis (District \(number))", latitude: 40.0 + Double(number) / 100,
            longitude: 10.0, countryCode: "AA", admin1Code: "01", population: 50_000, featureCode: "PPLX",
            administrativeCodes: ["01", "", "", ""])
    }
    static let oldTown = PlaceSourceRecord(
        id: 20, name: "Old Town", latitude: 40.0, longitude: 10.02, countryCode: "AA", admin1Code: "01",
        population: 30_000, featureCode: "PPLX", administrativeCodes: ["01", "", "", ""])
    static let metroville = PlaceSourceRecord(
        id: 30, name: "Metroville", latitude: 45.0, longitude: 12.0, countryCode: "AA", admin1Code: "01",
        population: 8_000, featureCode: "PPL", administrativeCodes: ["01", "", "", ""])

    let search: CitySearch

    init() throws {
        let builder = PlacesIndexBuilder(countryNames: ["AA": "Atlantis"])
        let records = [Self.metropolis, Self.oldTown, Self.metroville] + Self.districts
        search = CitySearch(index: try PlacesIndex(bytes: builder.build(records).bytes))
    }

    @Test func districtsCollapseUnderTheirCity() {
        #expect(search.search("metro").map(\.place.name) == ["Metropolis", "Metroville"])
        #expect(search.search("metropolis").map(\.place.name) == ["Metropolis"])
    }

    @Test func aQueryThatFindsSomethingGetsNoTypoMatches() {
        // "metrop" finds Metropolis as typed; Metroville, one slip away ("metrov"), is not added.
        #expect(search.search("metrop").map(\.place.name) == ["Metropolis"])
        #expect(search.search("metrov").map(\.place.name) == ["Metroville"])
    }

    @Test func aSectionTheQueryNamesIsFound() {
        #expect(search.search("metropolis district 2").map(\.place.name) == ["Metropolis (District 2)"])
        // A section with another name than its city's is its own row.
        #expect(search.search("old town").map(\.place.name) == ["Old Town"])
    }

    @Test(arguments: ["metropolsi", "metroplis", "metropollis", "emtropolis", "metrapolis", "metropoliz"])
    func oneSlipFindsTheCity(query: String) {
        #expect(search.search(query).first?.place.name == "Metropolis")
    }

    /// Two slips, nonsense, fewer than five letters, or a first letter changed or left out ("netropolis",
    /// "etropolis"): the first letter is taken as typed.
    @Test(arguments: ["mertopolsi", "qqqqqq", "mtro", "metropolis dist 9x", "netropolis", "etropolis"])
    func twoSlipsOrShortQueriesFindNothing(query: String) {
        #expect(search.search(query).isEmpty, "\(search.search(query).map(\.place.name))")
    }
}
