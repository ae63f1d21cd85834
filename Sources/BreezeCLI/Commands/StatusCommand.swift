/// `breezectl status`: everything at once.
struct StatusCommand: SnapshotCommand {
    static let help = CommandHelp(
        abstract: "Show everything: place, permission, air quality, pollen, climate, weather.",
        usage: "status",
        discussion: "Each dataset shows its state and age; with --json, the daemon's objects, one per line.",
        examples: [("breezectl status", "the dashboard"), ("breezectl --json status", "the objects, for scripts")])
}
