import BreezeCore
import BreezeData
import BreezeTestSupport
import BreezeWeb
import Foundation
import Testing

/// Only reports whose every number is plausible are cached, published or served from the cache: one hostile
/// answer must not become a crash at every start.
@Suite struct ReportValidationTests {
    static let zurich = DataPipelineTests.zurich

    static func cacheFile(usAQI: String, fetchedAt: String = "1796032800") -> [UInt8] {
        Array("""
            {"place":{"id":2657896,"name":"Zurich","admin1":"Zurich","country":"Switzerland","countryCode":"CH",\
            "population":341730,"coordinate":{"latitude":47.3667,"longitude":8.55}},"fetchedAt":\(fetchedAt),\
            "report":{"time":1796032800,"usAQI":\(usAQI),"readings":[{"pollutant":"pm2_5","value":5.3}]}}
            """.utf8)
    }

    static func folder(with bytes: [UInt8]) throws -> String {
        let folder = TemporaryPaths.make("cache")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/air-\(zurich.id).json"))
        return folder
    }

    @Test func aPlausibleCacheFileIsServed() throws {
        let folder = try Self.folder(with: Self.cacheFile(usAQI: "27"))
        #expect(DataCache(folder: folder).load(.air, for: Self.zurich, as: AirQualityReport.self)?.report.usAQI == 27)
    }

    @Test(arguments: ["1e19", "-4", "1e308"])
    func aCacheFileWithAnOutOfRangeValueIsNeverServed(usAQI: String) throws {
        let folder = try Self.folder(with: Self.cacheFile(usAQI: usAQI))
        #expect(DataCache(folder: folder).load(.air, for: Self.zurich, as: AirQualityReport.self) == nil)
    }

    @Test(arguments: ["1e300", "-1e300"])
    func aCacheFileFetchedAtAnImpossibleTimeIsNeverServed(fetchedAt: String) throws {
        let folder = try Self.folder(with: Self.cacheFile(usAQI: "27", fetchedAt: fetchedAt))
        #expect(DataCache(folder: folder).load(.air, for: Self.zurich, as: AirQualityReport.self) == nil)
    }

    @Test func aCacheFileOverTheSizeBoundIsNeverRead() throws {
        var bytes = Self.cacheFile(usAQI: "27")
        bytes.insert(contentsOf: [UInt8](repeating: 0x20, count: DataCache.maximumFileSize), at: 1)
        let folder = try Self.folder(with: bytes)
        #expect(DataCache(folder: folder).load(.air, for: Self.zurich, as: AirQualityReport.self) == nil)
        #expect(DataCache.decode(bytes, as: AirQualityReport.self, for: Self.zurich) == nil)
        bytes.removeSubrange(1..<(1 + DataCache.maximumFileSize))
        #expect(DataCache.decode(bytes, as: AirQualityReport.self, for: Self.zurich)?.report.usAQI == 27)
    }

    @Test func aCacheEntryFetchedInTheFutureIsNotTakenAsFresh() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        // A year ahead (a clock set back since, or an edited file): as fresh it would hide the data for a year.
        let future = String(Int(Date().timeIntervalSince1970) + 365 * 86_400)
        let folder = try Self.folder(with: Self.cacheFile(usAQI: "42", fetchedAt: future))
        let rig = DataPipelineTests.Rig(fixture: fixture, cacheFolder: folder)
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await rig.wait(.air) { $0 == .fresh })
        await rig.pipeline.stop()
        #expect(rig.statuses(.air).first == .loading)
        guard let state = rig.last(.air)?.state(as: AirQualityReport.self) else { Issue.record("no air update"); return }
        #expect(state.report?.usAQI == 27, "fetched anew, not the cached 42")
    }

    @Test func anImplausibleReportIsNotStored() throws {
        let folder = TemporaryPaths.make("cache")
        let report = AirQualityReport(time: 1_796_032_800, usAQI: 1e19, readings: [])
        #expect(DataCache(folder: folder).store(report, .air, for: Self.zurich, fetchedAt: 1_796_032_800) != nil)
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/air-\(Self.zurich.id).json"))
    }

    @Test func anOutOfRangeAnswerIsNeitherCachedNorPublished() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("values", path: "/v1/air-quality", match: "us_aqi", count: 100, current: ["us_aqi": 1e19])
        let rig = DataPipelineTests.Rig(fixture: fixture)
        await rig.pipeline.fetchAllData(for: Self.zurich)
        #expect(await rig.wait(.air) { if case .failed = $0 { true } else { false } })
        #expect(rig.last(.air)?.status.reason?.contains("us_aqi") == true, "\(String(describing: rig.last(.air)))")
        await rig.pipeline.stop()
        let published = rig.updates.all.compactMap { event -> Double? in
            (event.update.report as? AirQualityReport)?.usAQI
        }
        #expect(published.isEmpty, "published \(published)")
        #expect(!FileManager.default.fileExists(atPath: "\(rig.cacheFolder)/air-\(Self.zurich.id).json"))
    }

    @Test func aSourceThatHandsOverAnImplausibleReportIsRefusedBeforeTheCache() async throws {
        let folder = TemporaryPaths.make("cache")
        let updates = EventRecorder<DataUpdate>()
        let hostile = AirQualityReport(time: 1_796_032_800, usAQI: .infinity, readings: [])
        let sources = DataSources(
            air: { _ throws(WebError) in hostile },
            pollen: { _ throws(WebError) in PollenReport(provider: .openMeteo, time: 0, entries: []) },
            climate: { _ throws(WebError) in ClimateReport(month: 1, day: 1, points: []) })
        var configuration = DataPipeline.Configuration()
        configuration.settle = .zero
        let pipeline = DataPipeline(sources: sources, cache: DataCache(folder: folder), configuration: configuration) {
            updates.append($0)
        }
        await pipeline.fetchAllData(for: Self.zurich)
        #expect(await updates.wait(timeout: 10) { $0.contains { $0.dataset == .air && $0.status.name == "failed" } })
        await pipeline.stop()
        #expect(!updates.all.contains { $0.dataset == .air && $0.report != nil })
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/air-\(Self.zurich.id).json"))
    }
}
