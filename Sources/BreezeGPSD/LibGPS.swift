internal import CGPS

/// libgps's functions, loaded once, when the gpsd source first connects (`CGPS_load`): a daemon that never reaches
/// for gpsd never loads libgps, nor libstdc++, libdbus and libsystemd behind it.
enum LibGPS {
    private static let loaded: Result<CGPS_api, GPSDError> = {
        var api = CGPS_api()
        if let failure = CGPS_load(&api) {
            let library = String(cString: CGPS_library_name())
            return .failure(GPSDError(.system, "cannot load \(library): \(String(cString: failure))"))
        }
        return .success(api)
    }()

    /// The functions, or why the library cannot be loaded (not installed: Debian's libgps28).
    static func api() throws(GPSDError) -> CGPS_api {
        try loaded.get()
    }

    /// `gps_errstr`'s words for one of libgps's codes; only the number when the library cannot be loaded.
    static func message(_ code: Int32) -> String {
        guard case .success(var api) = loaded, let text = CGPS_errstr(&api, code) else { return "libgps code \(code)" }
        return String(cString: text)
    }
}
