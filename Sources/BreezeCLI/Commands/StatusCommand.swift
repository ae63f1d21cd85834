/// `breezectl status`: everything at once.
struct StatusCommand: SnapshotCommand {
    static let help = CommandHelp(
        abstract: "Show everything: place, permission, air quality, pollen, climate, weather.",
        usage: "status [<place>]",
        arity: CommandHelp.placeArity,
        arguments: [CommandHelp.placeArgument],
        options: """
              --format <text>         Print this text once instead, its {tokens} those of watch --format
                                      (breezectl help watch); a missing value is empty, or {token|default}.
            """,
        discussion: "Each dataset shows its state and age; with --json, the daemon's objects, one per line.",
        examples: [
            ("breezectl status", "the dashboard"), ("breezectl --json status", "the objects, for scripts"),
            ("breezectl status --format '{city}: AQI {aqi|?}'", "one line for a script"),
            ("breezectl status sao paulo", "every dataset for São Paulo, breezed's own place unchanged"),
        ])
}
