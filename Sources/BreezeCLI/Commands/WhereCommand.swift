/// `breezectl where`: the place.
struct WhereCommand: SnapshotCommand {
    static let help = CommandHelp(
        abstract: "Show where the machine is (or the selected city).",
        usage: "where",
        options: """
              --format <text>         Print this text once instead, its {tokens} those of watch --format
                                      (breezectl help watch); a missing value is empty, or {token|default}.
            """,
        examples: [
            ("breezectl where", "the place, its source and accuracy"),
            ("breezectl where --json", "the LOCATION object"),
            ("breezectl where --format '{latitude},{longitude}'", "the position, for a map"),
        ])
}
