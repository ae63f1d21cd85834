/// `breezectl where`: the place.
struct WhereCommand: SnapshotCommand {
    static let help = CommandHelp(
        abstract: "Show where the machine is (or the selected city).",
        usage: "where",
        examples: [
            ("breezectl where", "the place, its source and accuracy"),
            ("breezectl where --json", "the LOCATION object"),
        ])
}
