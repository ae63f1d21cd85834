/// `breezectl weather`: now and seven days.
struct WeatherCommand: SnapshotCommand {
    static let help = CommandHelp(
        abstract: "Show the weather now and the forecast for 7 days.",
        usage: "weather",
        examples: [("breezectl weather", "the temperature and condition now, and 7 days"),
                   ("breezectl --units c weather", "in Celsius")])
}
