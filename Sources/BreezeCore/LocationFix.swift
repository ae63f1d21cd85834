/// How good a receiver's fix is.
public enum FixMode: Int, Sendable, Codable, CaseIterable {
    case noFix = 1
    case twoD = 2
    case threeD = 3

    public var title: String {
        switch self {
        case .noFix: "no fix"
        case .twoD: "2D fix"
        case .threeD: "3D fix"
        }
    }
}

/// One position from a location source.
public struct LocationFix: Hashable, Sendable {
    public var coordinate: Coordinate
    public var mode: FixMode
    /// Metres above mean sea level.
    public var altitude: Double?
    /// Estimated horizontal error, metres.
    public var horizontalAccuracy: Double?
    /// Metres per second.
    public var speed: Double?
    /// Degrees from true north.
    public var track: Double?
    /// The receiver's own time for the fix, seconds since 1970. Receivers can be years off (GPS week rollover):
    /// never judge staleness by it.
    public var receiverTime: Double?
    /// When this program received the fix, on the monotonic clock: what staleness is judged by.
    public var receivedAt: ContinuousClock.Instant
    /// When this program received the fix, wall-clock seconds since 1970 (for people and the wire).
    public var receivedWallTime: Double
    public var source: LocationSourceKind

    public init(
        coordinate: Coordinate, mode: FixMode, altitude: Double? = nil, horizontalAccuracy: Double? = nil,
        speed: Double? = nil, track: Double? = nil, receiverTime: Double? = nil,
        receivedAt: ContinuousClock.Instant, receivedWallTime: Double, source: LocationSourceKind
    ) {
        self.coordinate = coordinate
        self.mode = mode
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.speed = speed
        self.track = track
        self.receiverTime = receiverTime
        self.receivedAt = receivedAt
        self.receivedWallTime = receivedWallTime
        self.source = source
    }
}
