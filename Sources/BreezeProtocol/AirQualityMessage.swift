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
        members.append(("pollutants", .array(readings.map { reading in
            .object([
                ("code", .string(reading.pollutant.rawValue)), ("symbol", .string(reading.pollutant.symbol)),
                ("value", reading.value.map(JSONValue.number) ?? .null), ("unit", .string("µg/m³")),
                ("status", reading.status.map { .string($0.rawValue) } ?? .null),
            ])
        })))
        return members
    }

    /// `us_aqi` is always present, null until there is a reading.
    public static var membersWithoutReport: [(String, JSONValue)] { [("us_aqi", .null)] }
}
