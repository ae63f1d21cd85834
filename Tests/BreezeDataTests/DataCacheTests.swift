import BreezeCore
import BreezeData
import Foundation
import Testing

/// The cache of the last data per place: one file per dataset and place, served only for its own place, and at
/// most `limitPerDataset` files per dataset, the oldest going first.
@Suite struct DataCacheTests {
    static func place(_ id: Int, _ name: String) -> Place {
        Place(id: id, name: name, admin1: nil, country: "Switzerland", countryCode: "CH", population: 1_000,
              coordinate: Coordinate(latitude: 46.9, longitude: 7.4))
    }

    static let bern = place(2_661_552, "Bern")
    static let zurich = place(2_657_896, "Zurich")

    static func report(_ usAQI: Double) -> AirQualityReport {
        AirQualityReport(time: 1_780_000_000, usAQI: usAQI, readings: [PollutantReading(pollutant: .pm10, value: 12)])
    }

    let folder = NSTemporaryDirectory() + "breeze-cache-unit-" + UUID().uuidString

    func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    @Test func aStoredReportLoadsBackForItsPlace() throws {
        defer { remove() }
        let cache = DataCache(folder: folder)
        #expect(cache.store(Self.report(42), .air, for: Self.bern, fetchedAt: 1_780_000_100) == nil)
        let entry = try #require(cache.load(.air, for: Self.bern, as: AirQualityReport.self))
        #expect(entry.report == Self.report(42))
        #expect(entry.fetchedAt == 1_780_000_100)
        #expect(entry.place == Self.bern)
        #expect(files() == ["air-2661552.json"])
    }

    @Test func eachPlaceHasItsOwnFile() throws {
        defer { remove() }
        let cache = DataCache(folder: folder)
        cache.store(Self.report(42), .air, for: Self.bern, fetchedAt: 1_780_000_100)
        cache.store(Self.report(17), .air, for: Self.zurich, fetchedAt: 1_780_000_200)
        #expect(cache.load(.air, for: Self.bern, as: AirQualityReport.self)?.report.usAQI == 42)
        #expect(cache.load(.air, for: Self.zurich, as: AirQualityReport.self)?.report.usAQI == 17)
        #expect(files() == ["air-2657896.json", "air-2661552.json"])
    }

    @Test func aFileHoldingAnotherPlaceIsNotServed() throws {
        defer { remove() }
        let cache = DataCache(folder: folder)
        cache.store(Self.report(42), .air, for: Self.bern, fetchedAt: 1_780_000_100)
        // A file copied or renamed by hand: its name says Zurich, its contents say Bern.
        try FileManager.default.moveItem(atPath: folder + "/air-2661552.json", toPath: folder + "/air-2657896.json")
        #expect(cache.load(.air, for: Self.zurich, as: AirQualityReport.self) == nil)
    }

    @Test func nothingStoredLoadsNothing() {
        defer { remove() }
        #expect(DataCache(folder: folder).load(.air, for: Self.bern, as: AirQualityReport.self) == nil)
    }

    @Test func pastTheLimitTheOldestFilesOfTheDatasetGo() throws {
        defer { remove() }
        var cache = DataCache(folder: folder)
        cache.limitPerDataset = 3
        for id in 1...5 {
            cache.store(Self.report(Double(id)), .air, for: Self.place(id, "P\(id)"), fetchedAt: 1_780_000_000)
            #expect(files().count == min(id, 3), "after storing place \(id): \(files())")
            // Distinct modification times, so that "oldest" is well defined.
            try? FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(id))],
                ofItemAtPath: folder + "/air-\(id).json")
        }
        #expect(files() == ["air-3.json", "air-4.json", "air-5.json"])
        // Pollen's files are not counted against the air's.
        let pollen = PollenReport(provider: .openMeteo, time: 1_780_000_000, entries: [])
        cache.store(pollen, .pollen, for: Self.place(9, "P9"), fetchedAt: 1_780_000_000)
        #expect(files() == ["air-3.json", "air-4.json", "air-5.json", "pollen-9.json"])
    }
}
