#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A position on the Earth in WGS 84 degrees.
public struct Coordinate: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Mean Earth radius (IUGG), in metres.
    public static let earthRadius = 6_371_008.8

    public var latitude: Double
    public var longitude: Double

    /// Makes a coordinate without checking it; use `init(validatingLatitude:longitude:)` for outside input.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Makes a coordinate from outside input, or nil when it is not a position on the Earth.
    public init?(validatingLatitude latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude),
            (-180...180).contains(longitude)
        else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// Great-circle distance in metres (haversine on the mean sphere).
    public func distance(to other: Coordinate) -> Double {
        let phi1 = latitude * .pi / 180
        let phi2 = other.latitude * .pi / 180
        let dPhi = phi2 - phi1
        let dLambda = (other.longitude - longitude) * .pi / 180
        let a = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
        return 2 * Coordinate.earthRadius * asin(min(1, a.squareRoot()))
    }

    /// The point reached by going `distance` metres from here on the initial `bearing` (degrees from north).
    public func destination(distance: Double, bearing: Double) -> Coordinate {
        let delta = distance / Coordinate.earthRadius
        let theta = bearing * .pi / 180
        let phi1 = latitude * .pi / 180
        let lambda1 = longitude * .pi / 180
        let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))
        let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
        var lon = lambda2 * 180 / .pi
        lon = (lon + 540).truncatingRemainder(dividingBy: 360) - 180
        return Coordinate(latitude: phi2 * 180 / .pi, longitude: lon)
    }

    /// The coordinate rounded to `decimals` places (2 places is about 1 km: city level).
    public func rounded(toDecimals decimals: Int) -> Coordinate {
        let scale = pow(10, Double(decimals))
        return Coordinate(
            latitude: (latitude * scale).rounded() / scale,
            longitude: (longitude * scale).rounded() / scale)
    }

    public var description: String {
        "\(latitude),\(longitude)"
    }
}
