/// A failure libgps reports with one of its own negative codes (`NL_NOHOST`, `NL_NOCONNECT`, …), which are not
/// errno values: `strerror` would call them "Unknown error -6".
public struct LibGPSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The code `gps_open` left in errno.
    public var code: Int32

    /// libgps's words for the code (wraps `gps_errstr`): "can't get host entry".
    public var message: String {
        LibGPS.message(code)
    }

    public var description: String { "\(message) (libgps \(code))" }
}
