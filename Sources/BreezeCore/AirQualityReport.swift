/// Air quality at one place and time: the US AQI and the six pollutants.
public struct AirQualityReport: Hashable, Sendable, Codable {
    /// When the values hold, in seconds since 1970 (UTC).
    public var time: Double
    /// The US AQI; nil when the provider has no value.
    public var usAQI: Double?
    /// One reading per pollutant, in `Pollutant.allCases` order; a reading's value may be nil.
    public var readings: [PollutantReading]

    public init(time: Double, usAQI: Double?, readings: [PollutantReading]) {
        self.time = time
        self.usAQI = usAQI
        self.readings = readings
    }

    /// The Breeze label for the index; nil without an index.
    public var label: AirQualityLabel? {
        usAQI.flatMap { AirQualityLabel(usAQI: $0) }
    }

    public func reading(_ pollutant: Pollutant) -> PollutantReading? {
        readings.first { $0.pollutant == pollutant }
    }
}

extension AirQualityReport: Plausible {
    /// Fields are named as Open-Meteo names them (`us_aqi`, `pm2_5`), so an error points at the answer's field.
    public func checkPlausible() throws(ImplausibleValue) {
        try PlausibleRange.check(time, in: PlausibleRange.time, field: "time")
        if let usAQI { try PlausibleRange.check(usAQI, in: PlausibleRange.usAQI, field: "us_aqi") }
        try PlausibleRange.check(count: readings.count, atMost: Pollutant.allCases.count, field: "readings")
        for reading in readings {
            if let value = reading.value {
                try PlausibleRange.check(value, in: PlausibleRange.concentration, field: reading.pollutant.rawValue)
            }
        }
    }
}

extension Dataset {
    /// `AIR`: the US AQI and six pollutants, fresh for an hour.
    public static let air = Dataset(name: "air", className: "AIR", defaultFreshness: 3_600)
}

extension AirQualityReport: DatasetReport {
    public static var dataset: Dataset { .air }
    public var unavailableReason: String? { nil }
}
