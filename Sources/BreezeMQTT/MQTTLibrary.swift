internal import CMosquitto

/// libmosquitto's functions, loaded once, on first use (`CMosquitto_load`): a program that never connects to a
/// broker never loads it, nor libssl and libcrypto behind it.
enum MQTTLibrary {
    private static let loaded: Result<CMosquitto_api, MQTTError> = {
        var api = CMosquitto_api()
        if let failure = CMosquitto_load(&api) {
            return .failure(MQTTError(.library, "cannot load libmosquitto.so.1: \(String(cString: failure))"))
        }
        _ = api.lib_init!()
        return .success(api)
    }()

    /// The functions, or why the library cannot be loaded (not installed: Debian's libmosquitto1).
    static func api() throws(MQTTError) -> CMosquitto_api {
        try loaded.get()
    }

    /// `mosquitto_strerror`'s reason for `result`.
    static func reason(_ result: Int32) -> String {
        guard case .success(let api) = loaded else { return "error \(result)" }
        return api.strerror!(result).map { String(cString: $0) } ?? "error \(result)"
    }

    /// `mosquitto_connack_string`'s reason for a CONNACK code.
    static func connackReason(_ code: Int32) -> String {
        guard case .success(let api) = loaded else { return "code \(code)" }
        return api.connack_string!(code).map { String(cString: $0) } ?? "code \(code)"
    }
}
