public import BreezeCore
import BreezeSystem
import FoundationEssentials
import Glibc

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
    /// Bytes read of one file at most: a report takes about a kilobyte; a larger file is not one this wrote.
    public static let maximumFileSize = 1 << 20

    public init(folder: String) {
        self.folder = folder
    }

    /// The entry cached for `place`; nil when there is none or the file is not one to trust (`decode`).
    public func load<Report: Codable & Sendable & Plausible>(
        _ dataset: Dataset, for place: Place, as type: Report.Type
    ) -> Entry<Report>? {
        guard let bytes = try? AtomicFile.read(path(dataset, place), limit: Self.maximumFileSize) else { return nil }
        return Self.decode(bytes, as: type, for: place)
    }

    /// The entry a cache file's bytes hold, if they decode, are for `place`, and every number in them is
    /// plausible; nil otherwise. A pure function, for fuzzing.
    ///
    /// The file may have been written by an older version without these checks, or edited: what it holds is
    /// checked as a web answer is, so a value that would crash the daemon is never served at each start.
    public static func decode<Report: Codable & Sendable & Plausible>(
        _ bytes: [UInt8], as type: Report.Type, for place: Place
    ) -> Entry<Report>? {
        guard bytes.count <= maximumFileSize,
            let entry = try? JSONValue.decode(Entry<Report>.self, from: bytes),
            entry.place.id == place.id,
            PlausibleRange.time.contains(entry.fetchedAt),
            (try? entry.report.checkPlausible()) != nil
        else { return nil }
        return entry
    }

    /// Stores `report` if every number in it is plausible; failures are returned for the caller to log, never
    /// thrown at the fetch.
    @discardableResult
    public func store<Report: Codable & Sendable & Plausible>(
        _ report: Report, _ dataset: Dataset, for place: Place, fetchedAt: Double
    ) -> SystemCallError? {
        guard PlausibleRange.time.contains(fetchedAt), (try? report.checkPlausible()) != nil else {
            return SystemCallError(call: "store \(dataset.rawValue) cache (an implausible report)", errno: EINVAL)
        }
        do {
            try AtomicFile.makeFolder(folder)
            let entry = try JSONValue.encoding(Entry(place: place, fetchedAt: fetchedAt, report: report))
            try AtomicFile.write(entry.document(indented: false), to: path(dataset, place))
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
