import BreezeCore
import BreezeDaemon
import Foundation
import Testing

/// The state file: what save writes, load reads back; what load cannot read is kept aside, never overwritten.
@Suite struct StateStoreTests {
    static func place(_ id: Int, name: String = "Bern", latitude: Double = 46.94809, population: Int = 121_631) -> Place {
        Place(
            id: id, name: name, admin1: "Bern", country: "Switzerland", countryCode: "CH", population: population,
            coordinate: Coordinate(latitude: latitude, longitude: 7.44744))
    }

    static func stateJSON(saved: String, version: Int = 1) -> [UInt8] {
        Array("{\"version\":\(version),\"saved\":[\(saved)],\"location_enabled\":true}".utf8)
    }

    static func placeJSON(
        id: Int = 2661552, name: String = "Bern", latitude: String = "46.94809", population: String = "121631",
        countryCode: String = "CH"
    ) -> String {
        "{\"id\":\(id),\"name\":\"\(name)\",\"admin1\":\"Bern\",\"country\":\"Switzerland\",\"countryCode\":\"\(countryCode)\","
            + "\"population\":\(population),\"coordinate\":{\"latitude\":\(latitude),\"longitude\":7.44744}}"
    }

    @Test func aStateSavedIsLoadedBack() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let store = StateStore(folder: folder.path)
        var state = UserState()
        state.saved = [Self.place(2661552)]
        state.selected = Self.place(2661552)
        try store.save(state)
        let loaded = store.load()
        #expect(loaded.problem == nil)
        #expect(loaded.state == state)
    }

    @Test func theLargestStateSaveAcceptsIsLoadedBack() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let store = StateStore(folder: folder.path)
        let long = String(repeating: "ä", count: UserState.maximumNameLength)
        var state = UserState()
        state.saved = (1...UserState.maximumSavedCities).map {
            Place(id: $0, name: long, admin1: long, country: long, countryCode: "CH", population: 1,
                  coordinate: Coordinate(latitude: -90, longitude: 180))
        }
        state.selected = state.saved[0]
        state.lastPlace = state.saved[1]
        try store.save(state)
        let size = try #require(FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int)
        #expect(size <= StateStore.maximumSize)
        let loaded = store.load()
        #expect(loaded.problem == nil)
        #expect(loaded.state == state)
    }

    @Test func saveRefusesMoreSavedCitiesThanTheLimit() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        var state = UserState()
        state.saved = (1...(UserState.maximumSavedCities + 1)).map { Self.place($0) }
        #expect(throws: (any Error).self) { try StateStore(folder: folder.path).save(state) }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json"))
    }

    @Test func saveRefusesAPlaceLoadWouldRefuse() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        var state = UserState()
        state.selected = Self.place(1, latitude: 1e300)
        #expect(throws: (any Error).self) { try StateStore(folder: folder.path).save(state) }
    }

    /// A state file over the read limit used to be read as "cannot read", left in place, and overwritten by the
    /// next save: every saved city lost.
    @Test func aFileOverTheLimitIsMovedAsideBeforeAnythingIsWritten() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let store = StateStore(folder: folder.path)
        let padding = [UInt8](repeating: 0x20, count: StateStore.maximumSize)
        let original = Self.stateJSON(saved: Self.placeJSON()) + padding
        try folder.write(original, to: "state.json")
        let loaded = store.load()
        #expect(loaded.problem != nil)
        #expect(loaded.state == UserState())
        try store.save(loaded.state)
        let aside = try #require(folder.contents().first { $0.hasPrefix("state.json.corrupt-") }, "\(folder.contents())")
        #expect(FileManager.default.contents(atPath: folder.path + "/" + aside) == Data(original))
    }

    @Test func aFileThatCannotBeReadAtAllIsMovedAside() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path + "/state.json", withIntermediateDirectories: false)
        let store = StateStore(folder: folder.path)
        let loaded = store.load()
        #expect(loaded.problem != nil)
        #expect(folder.contents().contains { $0.hasPrefix("state.json.corrupt-") }, "\(folder.contents())")
        try store.save(loaded.state)
        #expect(store.load().problem == nil)
    }

    @Test(arguments: [
        ("latitude", placeJSON(latitude: "1e300")),
        ("latitude", placeJSON(latitude: "-91")),
        ("population", placeJSON(population: "1000000000000000")),
        ("population", placeJSON(population: "-1")),
        ("name", placeJSON(name: "")),
        ("name", placeJSON(name: String(repeating: "x", count: 10_000))),
        ("id", placeJSON(id: 0)),
        ("id", placeJSON(id: UserState.maximumPlaceID + 1)),
        ("countryCode", placeJSON(countryCode: String(repeating: "C", count: UserState.maximumCountryCodeLength + 1))),
    ])
    func aPlaceWithAnImpossibleValueMakesTheFileInvalid(field: String, place: String) throws {
        let bytes = Self.stateJSON(saved: place)
        #expect {
            _ = try StateStore.decode(bytes)
        } throws: { error in
            "\(error)".contains(field)
        }
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try folder.write(bytes, to: "state.json")
        let loaded = StateStore(folder: folder.path).load()
        #expect(loaded.state == UserState())
        #expect(loaded.problem?.contains(field) == true, "\(loaded.problem ?? "")")
        #expect(folder.contents().contains { $0.hasPrefix("state.json.corrupt-") })
    }

    @Test func moreSavedCitiesThanTheLimitMakeTheFileInvalid() throws {
        let places = (1...(UserState.maximumSavedCities + 1)).map { Self.placeJSON(id: $0) }
        #expect {
            _ = try StateStore.decode(Self.stateJSON(saved: places.joined(separator: ",")))
        } throws: { error in
            "\(error)".contains("saved")
        }
    }

    @Test(arguments: ["", "null", "[]", "{\"version\":2}", "{\"version\":1e300}", "{\"version\":1,\"saved\":{}}", "\u{FF}"])
    func malformedFilesAreRefusedWithoutATrap(text: String) {
        #expect(throws: (any Error).self) { _ = try StateStore.decode(Array(text.utf8)) }
    }

    @Test func twoBadFilesInTheSameSecondAreBothKept() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let store = StateStore(folder: folder.path)
        try folder.write(Array("first".utf8), to: "state.json")
        _ = store.load()
        try folder.write(Array("second".utf8), to: "state.json")
        _ = store.load()
        #expect(folder.contents().filter { $0.hasPrefix("state.json.corrupt-") }.count == 2, "\(folder.contents())")
    }
}
