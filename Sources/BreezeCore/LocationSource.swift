/// What a location source reports.
public enum LocationSourceEvent: Hashable, Sendable {
    /// Trying to reach the source (each attempt).
    case connecting
    /// The source accepted us; fixes may follow.
    case connected
    /// A usable fix (2D or better, with a finite position).
    case fix(LocationFix)
    /// The source is there but has no fix (a receiver without a view of the sky).
    case noFix
    /// The source refused this program.
    case denied(PermissionReason)
    /// An administrator's policy refused this program.
    case restricted(PermissionReason)
    /// The source cannot be reached, or went away; the source retries by itself.
    case lost(PermissionReason)
    /// The source sent something that is not used (a broken report, a receiver time that went backwards), and why;
    /// once per stretch of such reports, for the log.
    case rejected(String)
}

/// A live source of positions: gpsd, GeoClue. Each runs on its own thread or file descriptor, never blocking the
/// cooperative pool, and reconnects by itself.
public protocol LocationSource: Sendable {
    var kind: LocationSourceKind { get }
    /// Starts the source (once) and returns its reports. The stream ends when the source is stopped.
    func events() -> AsyncStream<LocationSourceEvent>
    /// Stops the source; its stream finishes. Safe to call more than once.
    func stop()
    /// Whether the source keeps sending fixes while standing still (gpsd, once a second) or only when the position
    /// changes (GeoClue): silence from the latter is not a lost fix.
    var sendsFixesContinuously: Bool { get }
    /// The user's privacy switch, for sources that take part in it (GeoClue's agent); others ignore it.
    func setEnabled(_ enabled: Bool)
}

extension LocationSource {
    public var sendsFixesContinuously: Bool { true }
    public func setEnabled(_ enabled: Bool) {}
}
