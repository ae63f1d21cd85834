public import BreezeCore

/// The `AIR`, `POLLEN` and `CLIMATE` objects: each dataset with its state (loading, fresh, stale with its age,
/// unavailable here, failed with the reason, offline) and the last good values.
public enum DatasetMessage {
    public static func air(_ state: DatasetState<AirQualityReport>, now: Double) -> JSONValue {
        var members = header(.air, state, now: now)
        if let report = state.report {
            members.append(("time", Timestamp.json(report.time)))
            members.append(("us_aqi", report.usAQI.map { .number($0.rounded()) } ?? .null))
            if let label = report.label {
                members += [
                    ("category", .string(label.category.rawValue)), ("label", .string(label.title)),
                    ("emoji", .string(label.emoji)), ("color", .string(label.colorHex)),
                    ("summary", .string(label.summary)), ("tips", tips(label.healthTips)),
                ]
            }
            members.append(("pollutants", .array(report.readings.map { reading in
                .object([
                    ("code", .string(reading.pollutant.rawValue)), ("symbol", .string(reading.pollutant.symbol)),
                    ("value", reading.value.map(JSONValue.number) ?? .null), ("unit", .string("µg/m³")),
                    ("status", reading.status.map { .string($0.rawValue) } ?? .null),
                ])
            })))
        } else {
            members.append(("us_aqi", .null))
        }
        return .object(members)
    }

    public static func pollen(_ state: DatasetState<PollenReport>, now: Double) -> JSONValue {
        var members = header(.pollen, state, now: now)
        if let report = state.report {
            members.append(("provider", .string(report.provider.rawValue)))
            members.append(("highest", report.highest.map { .number(Double($0.rawValue)) } ?? .null))
            if let highest = report.highest { members.append(("tips", tips(highest.healthTips))) }
            members.append(("entries", .array(report.entries.map { entry in
                var item: [(String, JSONValue)] = [
                    ("code", .string(entry.code)), ("name", .string(entry.name)), ("kind", .string(entry.kind.rawValue)),
                    ("level", entry.level.map { .number(Double($0.rawValue)) } ?? .null),
                    ("level_name", entry.level.map { .string($0.title) } ?? .null),
                ]
                if let grains = entry.grains { item.append(("grains", .number(grains))) }
                return .object(item)
            })))
        }
        return .object(members)
    }

    public static func climate(_ state: DatasetState<ClimateReport>, now: Double) -> JSONValue {
        var members = header(.climate, state, now: now)
        if let report = state.report {
            members.append(("month", .number(Double(report.month))))
            members.append(("day", .number(Double(report.day))))
            members.append(("points", .array(report.points.map { point in
                .object([("year", .number(Double(point.year))), ("max_c", .number(rounded(point.maximum.celsius)))])
            })))
            if let change = report.change {
                members.append(("change_c", .number(rounded(change.to.maximum.celsius - change.from.maximum.celsius))))
            }
        }
        return .object(members)
    }

    /// The same dataset in the state `status` with no values: for offline mode and before any place is known.
    public static func empty(_ dataset: Dataset, status: DatasetStatus, reason: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("class", .string(dataset.className)), ("state", .string(status.name))]
        if let reason = reason ?? status.reason { members.append(("reason", .string(reason))) }
        return .object(members)
    }

    private static func header<Report>(_ dataset: Dataset, _ state: DatasetState<Report>, now: Double) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("class", .string(dataset.className)), ("state", .string(state.status.name)),
        ]
        if let reason = state.status.reason { members.append(("reason", .string(reason))) }
        members += [
            ("place", .string(state.place.displayName)), ("place_id", .number(Double(state.place.id))),
            ("fetched", state.fetchedAt.map(Timestamp.json) ?? .null),
            ("age_s", state.age(at: now).map { .number($0.rounded()) } ?? .null),
        ]
        return members
    }

    private static func tips(_ sentences: [String]) -> JSONValue {
        .array(sentences.map(JSONValue.string))
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }
}
