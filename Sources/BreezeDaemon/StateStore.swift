import BreezeCore
import BreezeSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps `UserState` in `state.json` in the state folder, written atomically and durably before a change is
/// acknowledged, so nothing the user chose is lost on SIGKILL or power loss. What `save` writes, `load` reads:
/// both check the same size limit and the same values, so a file `load` refuses was not written by breezed.
///
/// To apply a change only once it is on disk: compute the new state, `save` it, and only then use it; when `save`
/// throws, the state in memory and on disk are both the old one.
public struct StateStore: Sendable {
    /// The largest state file read or written. The largest valid state (`UserState.maximumSavedCities` places
    /// with names of `UserState.maximumNameLength`) is far below it.
    public static let maximumSize = 4 << 20

    public let folder: String
    public var path: String { folder + "/state.json" }

    public init(folder: String) {
        self.folder = folder
    }

    /// The state in `bytes`, checked as `UserState.validate` does. Pure: the fuzz target's entry point.
    public static func decode(_ bytes: [UInt8]) throws(StateFileError) -> UserState {
        guard bytes.count <= maximumSize else {
            throw StateFileError(.tooLarge, "larger than \(maximumSize) bytes")
        }
        let state: UserState
        do {
            state = try JSONValue.decode(UserState.self, from: bytes)
        } catch let error as DecodingError {
            throw StateFileError(.invalid, String(Self.describe(error).prefix(300)))
        } catch {
            throw StateFileError(.invalid, String("\(error)".prefix(300)))
        }
        try state.validate()
        return state
    }

    /// The bytes `save` writes for `state`; throws when the state is not valid or over the size limit.
    public static func encode(_ state: UserState) throws(StateFileError) -> [UInt8] {
        try state.validate()
        guard let value = try? JSONValue.encoding(state) else {
            throw StateFileError(.invalid, "the state cannot be encoded")
        }
        let bytes = value.document(indented: true)
        guard bytes.count <= maximumSize else {
            throw StateFileError(.tooLarge, "the state is \(bytes.count) bytes, more than \(maximumSize)")
        }
        return bytes
    }

    /// The saved state; defaults when there is none. A file that cannot be loaded for any reason (unreadable, too
    /// large, not JSON, an invalid value, an unknown version) is moved aside with a timestamp before anything
    /// is written, and reported through `problem`: never a reason to stop, never overwritten. Moving it needs the
    /// same write permission on the folder as any save, so a file that cannot be moved aside cannot be
    /// overwritten either.
    public func load() -> (state: UserState, problem: String?) {
        let reason: String
        do throws(SystemCallError) {
            guard let bytes = try AtomicFile.read(path, limit: Self.maximumSize) else { return (UserState(), nil) }
            do throws(StateFileError) {
                return (try Self.decode(bytes), nil)
            } catch {
                reason = error.message
            }
        } catch  where error.errno == EFBIG {
            reason = "larger than \(Self.maximumSize) bytes"
        } catch {
            reason = "cannot read it: \(error)"
        }
        let aside = moveAside()
        return (
            UserState(),
            "\(path) is not a valid state file (\(reason)); "
                + (aside.map { "moved to \($0)" } ?? "could not move it aside") + "; using defaults"
        )
    }

    /// Writes `state` durably; throws, leaving the file as it was, when it is not valid, too large, or cannot be
    /// written.
    public func save(_ state: UserState) throws(StateFileError) {
        let bytes = try Self.encode(state)
        do throws(SystemCallError) {
            try AtomicFile.makeFolder(folder, mode: 0o750)
            try AtomicFile.write(bytes, to: path, mode: 0o640)
        } catch {
            throw StateFileError(.system, "\(error)", cause: error)
        }
    }

    /// Renames the file to `state.json.corrupt-<time>` (with a counter when that name is taken, so a second bad
    /// file in the same second does not replace the first); the new name, or nil when it could not be moved.
    private func moveAside() -> String? {
        let stamp = Self.stamp()
        for attempt in 0..<100 {
            let aside = "\(path).corrupt-\(stamp)" + (attempt == 0 ? "" : "-\(attempt)")
            guard access(aside, F_OK) != 0 else { continue }
            return rename(path, aside) == 0 ? aside : nil
        }
        return nil
    }

    /// A decoding error without Foundation's debug text: the path to the field and what was wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "" : String(path.drop { $0 == "." }) + ": "
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return path(context) + context.debugDescription
        case .keyNotFound(let key, let context):
            return path(context) + "\(key.stringValue) is missing"
        @unknown default:
            return "\(error)"
        }
    }

    private static func stamp() -> String {
        var now = time(nil)
        var utc = tm()
        gmtime_r(&now, &utc)
        return printfFormat(
            "%04d%02d%02dT%02d%02d%02dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
            utc.tm_sec)
    }
}
