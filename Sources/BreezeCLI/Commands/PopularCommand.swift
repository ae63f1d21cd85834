/// `breezectl popular`: the curated list the interactive search starts with.
struct PopularCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "List popular cities.",
        usage: "popular",
        examples: [("breezectl popular", "ten cities with their GeoNames ids, for select and saved add")])

    init(_ context: CommandContext) throws(CLIError) {}

    func run(_ context: CommandContext) throws(CLIError) {
        try context.request("popular")
    }
}
