public import BreezeCore

/// The `AIR` object's members: the time of the reading, the US AQI with its category, label and tips, and each
/// pollutant.
extension AirQualityReport: DatasetMessageBody {
    public var messageMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("time", Timestamp.json(time)), ("us_aqi", usAQI.map { .number($0.rounded()) } ?? .null),
        ]
        if let label {
            members += [
                ("category", .string(label.category.rawValue)), ("label", .string(label.title)),
                ("emoji", .string(label.emoji)), ("color", .string(label.colorHex)),
                ("summary", .string(label.summary)), ("tips", DatasetMessage.tips(label.healthTips)),
            ]
        }
        members.append(
            (
                "pollutants",
                .array(
                    readings.map { reading in
                        .object([
                            ("code", .string(reading.pollutant.rawValue)),
                            ("symbol", .string(reading.pollutant.symbol)),
                            ("value", reading.value.map(JSONValue.number) ?? .null), ("unit", .string("µg/m³")),
                            ("status", reading.status.map { .string($0.rawValue) } ?? .null),
                        ])
                    })
            ))
        return members
    }

    /// `us_aqi` is always present, null until there is a reading.
    /// What every sensor's template reads, empty: Home Assistant shows "unknown", not the last place's values.
    public static var membersWithoutReport: [(String, JSONValue)] { [("us_aqi", .null), ("pollutants", .array([]))] }

    /// The US AQI and a sensor per pollutant. Breeze publishes µg/m³; Home Assistant's carbon monoxide class takes
    /// ppm only, so CO is converted in its template (ppm = µg/m³ × 24.45 / 28,010: molar volume at 25 °C and 1 atm
    /// over CO's molar mass).
    public static var sensors: [DatasetSensor] {
        func pollutant(_ id: String, _ name: String, _ code: String, _ deviceClass: String, ppmFactor: String? = nil)
            -> DatasetSensor
        {
            let value =
                "(value_json.pollutants | selectattr('code', 'eq', '\(code)') | map(attribute='value') | list"
                + " + [none]) | first"
            let template =
                ppmFactor.map { factor in
                    "{% set v = \(value) %}{{ (v * \(factor)) | round(4) if v is number else none }}"
                } ?? "{{ \(value) }}"
            return DatasetSensor(
                id: id, name: name,
                members: [
                    ("value_template", .string(template)),
                    ("device_class", .string(deviceClass)),
                    ("unit_of_measurement", .string(ppmFactor == nil ? "µg/m³" : "ppm")),
                    ("state_class", .string("measurement")),
                ])
        }
        return [
            DatasetSensor(
                id: "us_aqi", name: "US AQI",
                members: [
                    ("value_template", .string("{{ value_json.us_aqi }}")), ("device_class", .string("aqi")),
                    ("state_class", .string("measurement")),
                ]),
            pollutant("pm2_5", "PM2.5", "pm2_5", "pm25"),
            pollutant("pm10", "PM10", "pm10", "pm10"),
            pollutant("no2", "NO₂", "nitrogen_dioxide", "nitrogen_dioxide"),
            pollutant("o3", "O₃", "ozone", "ozone"),
            pollutant("so2", "SO₂", "sulphur_dioxide", "sulphur_dioxide"),
            pollutant("co", "CO", "carbon_monoxide", "carbon_monoxide", ppmFactor: "24.45 / 28010"),
        ]
    }
}
