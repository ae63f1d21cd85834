/// The `current` object of an Open-Meteo answer: its local `time` and a number (or `null`) per variable.
struct OpenMeteoCurrent: Decodable {
    var time: String
    /// Every variable the answer carries; `null` values are present as nil.
    var values: [String: Double?]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        time = try container.decode(String.self, forKey: Key(stringValue: "time"))
        var values: [String: Double?] = [:]
        for key in container.allKeys where key.stringValue != "time" {
            // A value of another type ("us_aqi":"high") fails here, naming its path.
            values[key.stringValue] = try container.decodeIfPresent(Double.self, forKey: key)
        }
        self.values = values
    }

    /// A variable's value; nil when it is missing or `null`.
    func value(_ name: String) -> Double? {
        values[name] ?? nil
    }
}

/// An Open-Meteo answer with a `current` object.
struct OpenMeteoCurrentPayload: Decodable {
    var utcOffset: Double?
    var current: OpenMeteoCurrent

    enum CodingKeys: String, CodingKey {
        case utcOffset = "utc_offset_seconds"
        case current
    }

    /// The offset, within `PayloadLimits.utcOffsetSeconds`; 0 when the answer leaves it out.
    func checkedUTCOffset() throws(WebError) -> Int {
        try PayloadLimits.utcOffset(utcOffset)
    }
}
