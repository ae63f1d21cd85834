public import BreezeCore

/// The `CLIMATE` object's members: the day of the year, each year's maximum on that day, and the change.
extension ClimateReport: DatasetMessageBody {
    public var messageMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("month", .number(Double(month))), ("day", .number(Double(day))),
            (
                "points",
                .array(
                    points.map { point in
                        .object([
                            ("year", .number(Double(point.year))),
                            ("max_c", .number(DatasetMessage.rounded(point.maximum.celsius))),
                        ])
                    })
            ),
        ]
        if let change {
            members.append(
                ("change_c", .number(DatasetMessage.rounded(change.to.maximum.celsius - change.from.maximum.celsius))))
        }
        return members
    }
}
