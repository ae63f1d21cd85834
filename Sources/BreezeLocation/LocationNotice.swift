public import BreezeCore

/// Something a source sent that was not used, and why (a broken report, a receiver time that went backwards): for
/// the log, not for the location shown.
public struct LocationNotice: Hashable, Sendable {
    public var source: LocationSourceKind
    public var message: String

    public init(source: LocationSourceKind, message: String) {
        self.source = source
        self.message = message
    }
}
