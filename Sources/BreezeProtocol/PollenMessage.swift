public import BreezeCore

/// The `POLLEN` object's members: the provider, the highest level with its tips, and each pollen.
extension PollenReport: DatasetMessageBody {
    public var messageMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("provider", .string(provider.rawValue)),
            ("highest", highest.map { .number(Double($0.rawValue)) } ?? .null),
        ]
        if let highest { members.append(("tips", DatasetMessage.tips(highest.healthTips))) }
        members.append(
            (
                "entries",
                .array(
                    entries.map { entry in
                        var item: [(String, JSONValue)] = [
                            ("code", .string(entry.code)), ("name", .string(entry.name)),
                            ("kind", .string(entry.kind.rawValue)),
                            ("level", entry.level.map { .number(Double($0.rawValue)) } ?? .null),
                            ("level_name", entry.level.map { .string($0.title) } ?? .null),
                        ]
                        if let grains = entry.grains { item.append(("grains", .number(grains))) }
                        return .object(item)
                    })
            ))
        return members
    }

    /// What its sensor's template reads, empty: Home Assistant shows "unknown", not the last place's level.
    public static var membersWithoutReport: [(String, JSONValue)] { [("highest", .null)] }

    /// The highest level.
    public static var sensors: [DatasetSensor] {
        [
            DatasetSensor(
                id: "pollen", name: "Highest pollen level",
                members: [
                    ("value_template", .string("{{ value_json.highest }}")), ("icon", .string("mdi:flower-pollen")),
                    ("state_class", .string("measurement")),
                ])
        ]
    }
}
