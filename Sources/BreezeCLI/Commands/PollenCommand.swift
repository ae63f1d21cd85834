/// `breezectl pollen`: the pollen levels.
struct PollenCommand: SnapshotCommand {
    static let help = CommandHelp(
        abstract: "Show pollen levels.",
        usage: "pollen",
        discussion: "Exits 0 with data (fresh or stale), 75 while it is being fetched or the fetch failed, 69 when "
            + "there is none for the place.",
        examples: [("breezectl pollen", "each pollen type and plant, with advice at the highest level")])
}
