public import BreezeCore

/// The `WEATHER` object's members: the conditions now (temperature, feels-like, condition in words and as an
/// icon, day or night, humidity, wind) and the daily forecast. Temperatures go in °C; clients convert.
extension WeatherReport: DatasetMessageBody {
    public var messageMembers: [(String, JSONValue)] {
        [
            ("time", Timestamp.json(time)),
            ("temperature_c", .number(DatasetMessage.rounded(current.temperature.celsius))),
            ("apparent_c", current.apparentTemperature.map { .number(DatasetMessage.rounded($0.celsius)) } ?? .null),
            ("code", .number(Double(current.code.rawValue))), ("condition", .string(current.code.condition)),
            ("icon", .string(current.code.iconName(isDay: current.isDay))),
            ("emoji", .string(current.code.emoji(isDay: current.isDay))), ("is_day", .bool(current.isDay)),
            ("humidity", current.humidity.map { .number($0.rounded()) } ?? .null),
            ("wind_kmh", current.windSpeed.map { .number(DatasetMessage.rounded($0)) } ?? .null),
            ("daily", .array(days.map(Self.day))),
        ]
    }

    private static func day(_ day: Day) -> JSONValue {
        .object([
            ("date", .string(day.date)),
            ("code", day.code.map { .number(Double($0.rawValue)) } ?? .null),
            ("condition", day.code.map { .string($0.condition) } ?? .null),
            ("icon", day.code.map { .string($0.iconName(isDay: true)) } ?? .null),
            ("emoji", day.code.map { .string($0.emoji(isDay: true)) } ?? .null),
            ("max_c", day.high.map { .number(DatasetMessage.rounded($0.celsius)) } ?? .null),
            ("min_c", day.low.map { .number(DatasetMessage.rounded($0.celsius)) } ?? .null),
            ("precipitation_probability", day.precipitationProbability.map { .number($0.rounded()) } ?? .null),
        ])
    }

    /// What its sensors' templates read, empty: Home Assistant shows "unknown", not the last place's weather.
    public static var membersWithoutReport: [(String, JSONValue)] { [("temperature_c", .null), ("condition", .null)] }

    /// The temperature and the condition now, announced once there is weather to show.
    public static var sensors: [DatasetSensor] {
        [
            DatasetSensor(
                id: "temperature", name: "Temperature",
                members: [
                    ("value_template", .string("{{ value_json.temperature_c }}")),
                    ("device_class", .string("temperature")), ("unit_of_measurement", .string("°C")),
                    ("state_class", .string("measurement")),
                ]),
            DatasetSensor(
                id: "condition", name: "Condition",
                members: [
                    ("value_template", .string("{{ value_json.condition }}")),
                    ("icon", .string("mdi:weather-partly-cloudy")),
                ]),
        ]
    }

    public static var sensorsWaitForData: Bool { true }
}
