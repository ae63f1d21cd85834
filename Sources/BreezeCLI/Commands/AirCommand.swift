/// `breezectl air`: the air quality.
struct AirCommand: SnapshotCommand {
    static let help = CommandHelp(
        abstract: "Show the air quality: US AQI and six pollutants.",
        usage: "air",
        discussion: "Exits 0 with data (fresh or stale), 75 while it is being fetched or the fetch failed, 69 when "
            + "there is none for the place.",
        examples: [("breezectl air", "the index, its label, advice and the pollutants")])
}
