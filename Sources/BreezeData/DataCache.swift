public import BreezeCore
import BreezeSystem
import Foundation

/// The last good report per place and dataset, on disk, so a cold start shows data at once (with its age) and an
/// outage serves the last good data instead of nothing.
///
/// One small JSON file per place and dataset, written atomically. A file that does not decode is ignored (and
/// replaced at the next good fetch): the cache is an optimisation, never a reason to fail.
public struct DataCache: Sendable {
    public struct Entry<Report: Codable & Sendable>: Codable, Sendable {
        public var place: Place
        public var fetchedAt: Double
        public var report: Report
    }

    public let folder: String
    /// Files kept per dataset; the least recently written go first.
    public var limitPerDataset = 64

    public init(folder: String) {
        self.folder = folder
    }

    public func load<Report: Codable & Sendable>(_ dataset: Dataset, for place: Place, as type: Report.Type) -> Entry<Report>? {
        guard let bytes = try? AtomicFile.read(path(dataset, place)),
            let entry = try? JSONDecoder().decode(Entry<Report>.self, from: Data(bytes)),
            entry.place.id == place.id
        else { return nil }
        return entry
    }

    /// Stores `report`; failures are returned for the caller to log, never thrown at the fetch.
    @discardableResult
    public func store<Report: Codable & Sendable>(
        _ report: Report, _ dataset: Dataset, for place: Place, fetchedAt: Double
    ) -> SystemCallError? {
        do {
            try AtomicFile.makeFolder(folder)
            let data = try JSONEncoder().encode(Entry(place: place, fetchedAt: fetchedAt, report: report))
            try AtomicFile.write(Array(data), to: path(dataset, place))
            prune(dataset)
            return nil
        } catch let error as SystemCallError {
            return error
        } catch {
            return SystemCallError(call: "encode \(dataset.rawValue) cache", errno: EINVAL)
        }
    }

    func path(_ dataset: Dataset, _ place: Place) -> String {
        "\(folder)/\(dataset.rawValue)-\(place.id).json"
    }

    private func prune(_ dataset: Dataset) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder) else { return }
        let files = names.filter { $0.hasPrefix(dataset.rawValue + "-") && $0.hasSuffix(".json") }
        guard files.count > limitPerDataset else { return }
        let dated = files.map { name -> (String, Date) in
            let path = "\(folder)/\(name)"
            let date = (try? manager.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
            return (path, date)
        }
        for (path, _) in dated.sorted(by: { $0.1 < $1.1 }).prefix(files.count - limitPerDataset) {
            try? manager.removeItem(atPath: path)
        }
    }
}
