/// `breezectl here`: back to the machine's own position.
struct HereCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Go back to the machine's own position.",
        usage: "here",
        examples: [("breezectl here", "undo 'breezectl select'")])

    init(_ context: CommandContext) throws(CLIError) {}

    func run(_ context: CommandContext) throws(CLIError) {
        try context.request("here")
    }
}
