/// The maximum temperature on one calendar day across past decades and this year: how the day has changed.
public struct ClimateReport: Hashable, Sendable, Codable {
    public struct Point: Hashable, Sendable, Codable {
        public var year: Int
        public var maximum: Temperature

        public init(year: Int, maximum: Temperature) {
            self.year = year
            self.maximum = maximum
        }
    }

    public var month: Int
    public var day: Int
    /// Ascending by year; years the provider had no value for are left out.
    public var points: [Point]

    public init(month: Int, day: Int, points: [Point]) {
        self.month = month
        self.day = day
        self.points = points.sorted { $0.year < $1.year }
    }

    /// The years asked for on `year`: every tenth year from 1980, then this year.
    public static func years(endingIn year: Int) -> [Int] {
        Array(stride(from: 1980, to: year, by: 10)) + [year]
    }

    /// From the first year's maximum to the latest year's; nil with fewer than two points.
    public var change: (from: Point, to: Point)? {
        guard let first = points.first, let last = points.last, points.count >= 2 else { return nil }
        return (first, last)
    }
}

extension ClimateReport: Plausible {
    /// A maximum is named as Open-Meteo names it (`temperature_2m_max`).
    public func checkPlausible() throws(ImplausibleValue) {
        try PlausibleRange.check(Double(month), in: 1...12, field: "month")
        try PlausibleRange.check(Double(day), in: 1...31, field: "day")
        try PlausibleRange.check(count: points.count, atMost: PlausibleRange.climatePoints, field: "points")
        for point in points {
            try PlausibleRange.check(Double(point.year), in: PlausibleRange.year, field: "year")
            try PlausibleRange.check(point.maximum.celsius, in: PlausibleRange.celsius, field: "temperature_2m_max")
        }
    }
}

extension Dataset {
    /// `CLIMATE`: the day's maximum temperature over the decades, fresh for a day.
    public static let climate = Dataset(name: "climate", className: "CLIMATE", defaultFreshness: 86_400)
}

extension ClimateReport: DatasetReport {
    public static var dataset: Dataset { .climate }
    public var unavailableReason: String? { points.isEmpty ? "no temperature record for this place" : nil }
}
