/// The weather at a place: the conditions now and a daily forecast, as Open-Meteo's forecast API gives them.
public struct WeatherReport: Hashable, Sendable, Codable {
    /// The conditions at `time`.
    public struct Current: Hashable, Sendable, Codable {
        public var temperature: Temperature
        public var apparentTemperature: Temperature?
        public var code: WeatherCode
        public var isDay: Bool
        /// Relative humidity, %.
        public var humidity: Double?
        /// Wind speed at 10 m, km/h.
        public var windSpeed: Double?

        public init(
            temperature: Temperature, apparentTemperature: Temperature?, code: WeatherCode, isDay: Bool,
            humidity: Double?, windSpeed: Double?
        ) {
            self.temperature = temperature
            self.apparentTemperature = apparentTemperature
            self.code = code
            self.isDay = isDay
            self.humidity = humidity
            self.windSpeed = windSpeed
        }
    }

    /// One day of the forecast, in the place's own calendar; a value the provider has not got is nil.
    public struct Day: Hashable, Sendable, Codable {
        /// The day, as "YYYY-MM-DD".
        public var date: String
        public var code: WeatherCode?
        public var high: Temperature?
        public var low: Temperature?
        /// The highest chance of precipitation during the day, %.
        public var precipitationProbability: Double?

        public init(
            date: String, code: WeatherCode?, high: Temperature?, low: Temperature?, precipitationProbability: Double?
        ) {
            self.date = date
            self.code = code
            self.high = high
            self.low = low
            self.precipitationProbability = precipitationProbability
        }
    }

    /// When the current conditions were observed, seconds since 1970.
    public var time: Double
    public var current: Current
    /// Today first.
    public var days: [Day]

    public init(time: Double, current: Current, days: [Day]) {
        self.time = time
        self.current = current
        self.days = days
    }
}

extension WeatherReport: Plausible {
    public func checkPlausible() throws(ImplausibleValue) {
        try PlausibleRange.check(time, in: PlausibleRange.time, field: "time")
        try PlausibleRange.check(current.temperature.celsius, in: PlausibleRange.celsius, field: "temperature_2m")
        if let apparent = current.apparentTemperature {
            try PlausibleRange.check(apparent.celsius, in: PlausibleRange.celsius, field: "apparent_temperature")
        }
        if let humidity = current.humidity {
            try PlausibleRange.check(humidity, in: PlausibleRange.percent, field: "relative_humidity_2m")
        }
        if let wind = current.windSpeed {
            try PlausibleRange.check(wind, in: PlausibleRange.windSpeed, field: "wind_speed_10m")
        }
        try PlausibleRange.check(count: days.count, atMost: PlausibleRange.forecastDays, field: "daily")
        for day in days {
            try PlausibleRange.check(count: day.date.utf8.count, atMost: 10, field: "daily.time")
            if let high = day.high {
                try PlausibleRange.check(high.celsius, in: PlausibleRange.celsius, field: "temperature_2m_max")
            }
            if let low = day.low {
                try PlausibleRange.check(low.celsius, in: PlausibleRange.celsius, field: "temperature_2m_min")
            }
            if let chance = day.precipitationProbability {
                try PlausibleRange.check(chance, in: PlausibleRange.percent, field: "precipitation_probability_max")
            }
        }
    }
}

extension Dataset {
    /// `WEATHER`: the conditions now and the forecast, fresh for an hour.
    public static let weather = Dataset(name: "weather", className: "WEATHER", defaultFreshness: 3_600)
}

extension WeatherReport: DatasetReport {
    public static var dataset: Dataset { .weather }
    public var unavailableReason: String? { nil }
}
