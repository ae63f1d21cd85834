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

    /// The fix as it is.
    public static func exact(fix: LocationFix, distance: Double) -> CoarseLocation {
        CoarseLocation(
            coordinate: fix.coordinate, accuracy: fix.horizontalAccuracy, time: fix.receivedWallTime,
            distance: distance)
    }

    /// The fix made coarse: coordinates rounded, the distance to the nearest step, the accuracy no better than what
    /// the rounding leaves (rounded up to a step), the time down to the minute.
    public init(fix: LocationFix, distance: Double) {
        coordinate = fix.coordinate.rounded(toDecimals: Self.decimals)
        self.distance = Self.nearestStep(distance)
        accuracy = Self.stepUp(max(fix.horizontalAccuracy ?? 0, 0) + Self.step)
        time = Self.timeStep * (fix.receivedWallTime / Self.timeStep).rounded(.down)
    }

    private init(coordinate: Coordinate, accuracy: Double?, time: Double, distance: Double) {
        self.coordinate = coordinate
        self.accuracy = accuracy
        self.time = time
        self.distance = distance
    }

    private static func nearestStep(_ metres: Double) -> Double {
        metres.isFinite ? step * (metres / step).rounded() : 0
    }

    private static func stepUp(_ metres: Double) -> Double {
        metres.isFinite ? step * (metres / step).rounded(.up) : step
    }
}
