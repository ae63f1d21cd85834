import BreezeCore
import BreezePlaces
import Dispatch
import Foundation
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

    @Test func aQueryNamingASectionFindsItsCityWithTheSectionsName() throws {
        let first = try #require(search.search("zurich kreis 1").first)
        #expect(first.place.name == "Zürich", "got \(first.place.qualifiedName)")
        #expect(first.matchedAlternateName)
        #expect(first.matchedName?.hasPrefix("Zürich (Kreis 1") == true, "matched \(first.matchedName ?? "nil")")
        let montmartre = try #require(search.search("montmartre").first)
        #expect(montmartre.place.name == "Paris" && montmartre.matchedName == "Montmartre")
    }

    @Test func aSectionWithoutACityIsFoundAsItselfAfterThePlacesOfTheirOwn() throws {
        // Spandau is a section of Berlin too far from its centre to name it.
        #expect(search.search("spandau").first?.place.name == "Spandau")
        // Zürich (Kreis 10) has no city to name: it comes after Zürich, found by the name of its section Kreis 1,
        // though it is itself a match by its own name.
        let found = search.search("zurich k").map { "\($0.place.name)|\($0.matchedName ?? "")" }
        #expect(found == ["Zürich|Zürich (Kreis 1)", "Zürich (Kreis 10) / Rütihof|"], "\(found)")
    }

    /// The ranking's rule on the GeoNames index: the places whose own name starts with the query first, most
    /// populous first, then those matched by another name, each with that name.
    @Test func ownNamesComeFirstThenOtherNamesWithTheNameThatMatched() throws {
        let paris = search.search("paris")
        #expect(paris.first?.place.qualifiedName == "Paris, Ile-de-France, France")
        let ownCount = paris.prefix { !$0.matchedAlternateName }.count
        #expect(paris[..<ownCount].allSatisfy { SearchKey.fold($0.place.name).hasPrefix("paris") })
        let populations = paris[..<ownCount].map(\.place.population)
        #expect(populations == populations.sorted(by: >), "\(paris.map(\.place.qualifiedName))")
        #expect(paris[ownCount...].allSatisfy { $0.matchedAlternateName && $0.matchedName != nil })
        #expect(search.search("bern").first?.place.qualifiedName == "Bern, Switzerland")
        let ber = search.search("ber").map(\.place.name)
        #expect(ber.first == "Berlin" && ber.contains("Bern"), "\(ber)")
        // München is Munich's name in German, not its own: the places called München… first, then Munich.
        let munchen = search.search("münchen")
        let munich = try #require(munchen.first { $0.place.name == "Munich" }, "\(munchen.map(\.place.name))")
        #expect(munich.matchedAlternateName && munich.matchedName == "Munchen")
        #expect(munchen.first?.place.name.hasPrefix("München") == true)
    }

    /// For every prefix of two or three letters of a sizeable place's name, the answer from the index's prefix
    /// rankings (a limit of 24 or less) is the start of the answer scored from every key (a larger limit).
    @Test func thePrefixRankingsAgreeWithScoringEveryKey() throws {
        let index = try PlacesIndex(path: PlacesIndexLocation.sourceTreeIndex)
        var queries = Set<String>()
        for at in 0..<index.count {
            guard let place = index.place(at: at), place.population >= 50_000 else { continue }
            let folded = SearchKey.fold(place.name)
            for length in 2...3 where folded.count >= length { queries.insert(String(folded.prefix(length))) }
        }
        #expect(queries.count > 1000)
        var disagreements: [String] = []
        for query in queries.sorted() {
            let ranked = search.search(query, limit: 10).map(\.place.id)
            let scored = search.search(query, limit: 25).prefix(10).map(\.place.id)
            if ranked != Array(scored) { disagreements.append(query) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(queries.count): \(disagreements.prefix(10))")
    }

    /// The committed index's prefix rankings are those this builder makes: ranking it again changes nothing.
    @Test func theCommittedIndexIsRankedAsThisSearchRanks() throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: PlacesIndexLocation.sourceTreeIndex)))
        let again = try PlacesIndexBuilder.rankedAgain(bytes)
        #expect(again == bytes)
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
        ("sao pualo", "São Paulo", "BR"), ("munihc", "Munich", "DE"),
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

    @Test func aSectionTheQueryNamesIsShownAsItsCity() {
        let district = search.search("metropolis district 2")
        #expect(district.map(\.place.name) == ["Metropolis"])
        #expect(district.map(\.matchedName) == ["Metropolis (District 2)"])
        // A section with another name than its city's too.
        let oldTown = search.search("old town")
        #expect(oldTown.map(\.place.name) == ["Metropolis"])
        #expect(oldTown.map(\.matchedName) == ["Old Town"])
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
