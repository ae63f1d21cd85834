public import BreezeCore
import BreezeSystem
import Foundation

/// What the user chose, kept across restarts: saved cities, the selected city (or "here"), the location switch,
/// and the last place named.
public struct UserState: Codable, Equatable, Sendable {
    public var version = 1
    public var saved: [Place] = []
    /// nil: "here", the machine's own position.
    public var selected: Place?
    public var locationEnabled = true
    public var lastPlace: Place?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case version, saved, selected
        case locationEnabled = "location_enabled"
        case lastPlace = "last_place"
    }
}

/// Keeps `UserState` in `state.json` in the state folder, written atomically and durably before a change is
/// acknowledged, so nothing the user chose is lost on SIGKILL or power loss.
public struct StateStore: Sendable {
    public let folder: String
    public var path: String { folder + "/state.json" }

    public init(folder: String) {
        self.folder = folder
    }

    /// The saved state; defaults when there is none. A file that cannot be read as state is moved aside with a
    /// timestamp (and reported through `moved`), never a reason to stop.
    public func load() -> (state: UserState, problem: String?) {
        let bytes: [UInt8]?
        do {
            bytes = try AtomicFile.read(path, limit: 4 << 20)
        } catch {
            return (UserState(), "cannot read \(path): \(error); using defaults")
        }
        guard let bytes else { return (UserState(), nil) }
        do {
            let state = try JSONDecoder().decode(UserState.self, from: Data(bytes))
            guard state.version == 1 else { throw StateError("unknown version \(state.version)") }
            return (state, nil)
        } catch {
            let aside = "\(path).corrupt-\(Self.stamp())"
            let moved = rename(path, aside) == 0
            let detail = (error as? DecodingError).map { "\($0)".prefix(200) } ?? "\(error)".prefix(200)
            return (UserState(), "\(path) is not a valid state file (\(detail)); "
                + (moved ? "moved to \(aside)" : "could not move it aside") + "; using defaults")
        }
    }

    /// Writes `state` durably.
    public func save(_ state: UserState) throws(SystemCallError) {
        try AtomicFile.makeFolder(folder, mode: 0o750)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(state) else { throw SystemCallError(call: "encode state", errno: EINVAL) }
        try AtomicFile.write(Array(data) + [10], to: path, mode: 0o640)
    }

    private static func stamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: Date())
    }

    struct StateError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
