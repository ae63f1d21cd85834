/// A report whose every number can be checked against what the world can hold, so a hostile or damaged source
/// (a web answer, a cache file) never hands on a value that later code cannot take.
public protocol Plausible {
    /// Throws for the first number outside its plausible range, naming the field.
    func checkPlausible() throws(ImplausibleValue)
}

/// A number no real report holds: the field, its value, and the range it had to be in.
public struct ImplausibleValue: Error, Hashable, Sendable, CustomStringConvertible {
    public var field: String
    public var value: Double
    public var range: ClosedRange<Double>

    public init(field: String, value: Double, range: ClosedRange<Double>) {
        self.field = field
        self.value = value
        self.range = range
    }

    public var description: String {
        "\(field): \(value) is outside \(range.lowerBound)...\(range.upperBound)"
    }
}

/// The plausible range of each number a report carries, in one place.
///
/// Wide enough for any real reading (the extremes ever measured, with room), narrow enough that every value fits
/// what later code does with it: rounding to an `Int`, formatting, time arithmetic.
public enum PlausibleRange {
    /// The US AQI. The EPA's scale ends at 500, but Open-Meteo extends the top band's line past it and smoke from
    /// large wildfires has been reported above 500; twice the scale keeps those and refuses nonsense.
    public static let usAQI: ClosedRange<Double> = 0...1_000
    /// A pollutant's mass concentration, µg/m³. Dust storms have carried PM10 past 10,000; 0.1 g/m³ is beyond any
    /// air anyone measures outdoors.
    public static let concentration: ClosedRange<Double> = 0...100_000
    /// Pollen grains per m³. Peak days of birch or cedar pollen reach some thousands.
    public static let pollenGrains: ClosedRange<Double> = 0...100_000
    /// A pollen index on the Universal Pollen Index's 0–5 scale.
    public static let pollenIndex: ClosedRange<Double> = 0...5
    /// An air temperature, °C. The records are −89.2 °C and 56.7 °C.
    public static let celsius: ClosedRange<Double> = -100...100
    /// A time or fetch time, seconds since 1970: up to the end of year 9999, the last a 4-digit date can name.
    public static let time: ClosedRange<Double> = 0...253_402_300_799
    /// A calendar year of a climate point.
    public static let year: ClosedRange<Double> = 1_900...9_999
    /// Entries of one pollen report: Google's three types and some fifteen plants, Open-Meteo's six taxa.
    public static let pollenEntries = 64
    /// Points of one climate report: a point per decade since 1980, and this year.
    public static let climatePoints = 64
    /// Relative humidity or a probability, %.
    public static let percent: ClosedRange<Double> = 0...100
    /// A wind speed, km/h. The strongest gust measured is 408 km/h.
    public static let windSpeed: ClosedRange<Double> = 0...600
    /// Days in a weather forecast (Open-Meteo gives at most 16).
    public static let forecastDays = 16

    /// Throws unless `value` lies in `range`; NaN never does.
    public static func check(_ value: Double, in range: ClosedRange<Double>, field: String) throws(ImplausibleValue) {
        guard range.contains(value) else { throw ImplausibleValue(field: field, value: value, range: range) }
    }

    /// Throws unless `count` is at most `limit`.
    public static func check(count: Int, atMost limit: Int, field: String) throws(ImplausibleValue) {
        guard count <= limit else {
            throw ImplausibleValue(field: field, value: Double(count), range: 0...Double(limit))
        }
    }
}
