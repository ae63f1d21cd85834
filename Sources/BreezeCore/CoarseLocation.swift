/// What a live fix shows of itself: exact for trusted peers, or coarse for the others, where every field derived
/// from the position matches the city-level rounding of the coordinates, so that none narrows it back down.
public struct CoarseLocation: Hashable, Sendable {
    /// Decimal places kept of each coordinate: 2 is about 1.1 km north–south.
    public static let decimals = 2
    /// Distances and accuracies go in steps of this many metres.
    public static let step = 1_000.0
    /// Times go in steps of this many seconds.
    public static let timeStep = 60.0

    public var coordinate: Coordinate
    /// Metres; nil when the receiver gave none.
    public var accuracy: Double?
    /// Wall-clock seconds since 1970.
    public var time: Double
    /// Metres from the position to its place's centre.
    public var distance: Double
    public var mode: FixMode
    /// Metres above mean sea level; nil when the receiver gave none.
    public var altitude: Double?
    /// Metres a second; nil when the receiver gave none.
    public var speed: Double?
    /// Degrees from true north; nil when the receiver gave none.
    public var heading: Double?

    /// The fix as it is.
    public static func exact(fix: LocationFix, distance: Double) -> CoarseLocation {
        CoarseLocation(
            coordinate: fix.coordinate, accuracy: fix.horizontalAccuracy, time: fix.receivedWallTime,
            distance: distance, mode: fix.mode, altitude: fix.altitude, speed: fix.speed, heading: fix.track)
    }

    /// The fix made coarse: coordinates rounded, the distance to the nearest step, the accuracy no better than what
    /// the rounding leaves (rounded up to a step), the time down to the minute. Altitude, speed and heading are left
    /// out: in hills a height narrows a 1 km cell to a contour, and speed and heading tell a track.
    public init(fix: LocationFix, distance: Double) {
        coordinate = fix.coordinate.rounded(toDecimals: Self.decimals)
        self.distance = Self.nearest(distance, step: Self.step) ?? 0
        accuracy = Self.stepUp(max(fix.horizontalAccuracy ?? 0, 0) + Self.step)
        time = Self.timeStep * (fix.receivedWallTime / Self.timeStep).rounded(.down)
        mode = fix.mode
        altitude = nil
        speed = nil
        heading = nil
    }

    private init(
        coordinate: Coordinate, accuracy: Double?, time: Double, distance: Double, mode: FixMode, altitude: Double?,
        speed: Double?, heading: Double?
    ) {
        self.coordinate = coordinate
        self.accuracy = accuracy
        self.time = time
        self.distance = distance
        self.mode = mode
        self.altitude = altitude
        self.speed = speed
        self.heading = heading
    }

    private static func nearest(_ value: Double, step: Double) -> Double? {
        value.isFinite ? step * (value / step).rounded() : nil
    }

    private static func stepUp(_ metres: Double) -> Double {
        metres.isFinite ? step * (metres / step).rounded(.up) : step
    }
}
