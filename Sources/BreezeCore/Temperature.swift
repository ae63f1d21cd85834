/// The unit a person reads temperatures in.
public enum TemperatureUnit: String, CaseIterable, Sendable, Codable {
    case celsius = "c"
    case fahrenheit = "f"

    public var symbol: String {
        switch self {
        case .celsius: "°C"
        case .fahrenheit: "°F"
        }
    }

    /// °F where the locale is the United States' (`en_US`, as the app does), °C elsewhere.
    ///
    /// - Parameter localeIdentifier: a POSIX locale such as `en_US.UTF-8`, or nil.
    public static func preferred(forLocale localeIdentifier: String?) -> TemperatureUnit {
        guard let localeIdentifier else { return .celsius }
        let language = localeIdentifier.split(separator: ".").first.map(String.init) ?? ""
        return language == "en_US" ? .fahrenheit : .celsius
    }
}

/// A temperature, held in degrees Celsius.
public struct Temperature: Hashable, Sendable, Codable, Comparable {
    public var celsius: Double

    public init(celsius: Double) {
        self.celsius = celsius
    }

    public init(fahrenheit: Double) {
        self.celsius = (fahrenheit - 32) * 5 / 9
    }

    public var fahrenheit: Double {
        celsius * 9 / 5 + 32
    }

    public func value(in unit: TemperatureUnit) -> Double {
        unit == .celsius ? celsius : fahrenheit
    }

    /// "21.3°C" or "70.3°F": one decimal.
    public func formatted(_ unit: TemperatureUnit) -> String {
        TemperatureFormat.oneDecimal(value(in: unit)) + unit.symbol
    }

    /// The change from `earlier` to this temperature, signed: "+3.6°F", "-1.2°C", "+0.0°C".
    ///
    /// A difference converts by scale only (1 °C of change is 1.8 °F), never with the 32° offset.
    public func formattedChange(since earlier: Temperature, in unit: TemperatureUnit) -> String {
        let delta = celsius - earlier.celsius
        let scaled = unit == .celsius ? delta : delta * 9 / 5
        let text = TemperatureFormat.oneDecimal(scaled)
        return (text.hasPrefix("-") ? text : "+" + text) + unit.symbol
    }

    public static func < (lhs: Temperature, rhs: Temperature) -> Bool {
        lhs.celsius < rhs.celsius
    }
}

/// Number formatting that does not depend on the process locale (a daemon's output is read by scripts).
enum TemperatureFormat {
    /// Rounds half away from zero to one decimal and never prints "-0.0".
    static func oneDecimal(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        let tenths = (value * 10).rounded(.toNearestOrAwayFromZero)
        if tenths == 0 { return "0.0" }
        let negative = tenths < 0
        // Past Int64's range no real temperature lies; Swift's own rendering ("1e+19") is still an answer.
        guard let magnitude = Int64(exactly: abs(tenths)) else { return "\(tenths / 10)" }
        return (negative ? "-" : "") + "\(magnitude / 10).\(magnitude % 10)"
    }
}
