/// `breezectl climate`: today's maximum across the decades.
struct ClimateCommand: SnapshotCommand {
    static let help = CommandHelp(
        abstract: "Show today's maximum temperature across the decades.",
        usage: "climate",
        examples: [("breezectl climate", "in the locale's unit"), ("breezectl --units f climate", "in Fahrenheit")])
}
