import BreezeCore
import BreezeData
import BreezeTestSupport
import BreezeWeb
import Foundation
import Testing

/// A dataset enters the pipeline as one `DatasetSource`; the report's type names the dataset.
@Suite struct DatasetSourceTests {
    static let zurich = DataPipelineTests.zurich

    static func air(_ usAQI: Double) -> DatasetSource {
        DatasetSource { _ throws(WebError) in AirQualityReport(time: 1_796_032_800, usAQI: usAQI, readings: []) }
    }

    @Test func aSourceIsKeyedByItsReportsDataset() {
        let pollen = DatasetSource { _ throws(WebError) in PollenReport(provider: .openMeteo, time: 0, entries: []) }
        #expect(Self.air(1).dataset == .air)
        #expect(pollen.dataset == .pollen)
    }

    @Test func onlyTheFirstSourceOfADatasetIsKept() async throws {
        let sources = DataSources([Self.air(11), Self.air(99)])
        #expect(sources.all.map(\.dataset) == [.air])
        let folder = NSTemporaryDirectory() + "breeze-cache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let updates = EventRecorder<DataUpdate>()
        var configuration = DataPipeline.Configuration()
        configuration.settle = .zero
        let pipeline = DataPipeline(sources: sources, cache: DataCache(folder: folder), configuration: configuration) {
            updates.append($0)
        }
        await pipeline.fetchAllData(for: Self.zurich)
        #expect(await updates.wait(timeout: 10) { $0.contains { $0.status == .fresh } })
        await pipeline.stop()
        let fetched = updates.all.compactMap { $0.state(as: AirQualityReport.self)?.report?.usAQI }
        #expect(fetched == [11])
        #expect(updates.all.allSatisfy { $0.dataset == .air })
    }

    @Test func anUpdateIsReadBackOnlyAsItsOwnDataset() {
        let report = AirQualityReport(time: 1, usAQI: 42, readings: [])
        let update = DataUpdate(DatasetState(place: Self.zurich, status: .fresh, report: report, fetchedAt: 5))
        #expect(update.dataset == .air)
        #expect(update.state(as: AirQualityReport.self)?.report == report)
        #expect(update.state(as: AirQualityReport.self)?.fetchedAt == 5)
        #expect(update.state(as: PollenReport.self) == nil)
        let other = DataUpdate(DatasetState(
            place: Self.zurich, status: .fresh, report: AirQualityReport(time: 1, usAQI: 43, readings: []), fetchedAt: 5))
        #expect(update != other)
        #expect(update == DataUpdate(DatasetState(place: Self.zurich, status: .fresh, report: report, fetchedAt: 5)))
    }

    @Test func everyRegisteredDatasetHasOneWebClientInTheRegistrysOrder() {
        #expect(DataSources.webClients.map { Self.dataset(of: $0) } == Dataset.allCases)
    }

    private static func dataset<Client: DatasetClient>(of client: Client.Type) -> Dataset {
        Client.Report.dataset
    }
}
