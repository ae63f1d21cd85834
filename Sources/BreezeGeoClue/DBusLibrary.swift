internal import CDBus

/// libdbus-1's functions, loaded once, when a bus connection is first made (`CDBus_load`): a daemon that never tries
/// GeoClue never loads libdbus, nor libsystemd, libgcrypt and the compression libraries behind it.
enum DBusLibrary {
    private struct Table: @unchecked Sendable {
        // @unchecked: the table is written once, by `CDBus_load`, before this value exists, and only read after.
        let api: UnsafePointer<CDBus_api>
    }

    private static let loaded: Result<Table, BusError> = {
        var failure: UnsafePointer<CChar>?
        guard let api = CDBus_load(&failure) else {
            let reason = failure.map { String(cString: $0) } ?? "unknown error"
            return .failure(.disconnected("cannot load \(String(cString: CDBus_library_name())): \(reason)"))
        }
        return .success(Table(api: api))
    }()

    /// The functions, or why the library cannot be loaded (not installed: Debian's libdbus-1-3).
    static func api() throws(BusError) -> UnsafePointer<CDBus_api> {
        try loaded.get().api
    }
}
