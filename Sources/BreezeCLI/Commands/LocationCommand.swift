/// `breezectl location on|off`: the privacy switch.
struct LocationCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Switch the use of this machine's position on or off.",
        usage: "location on|off",
        arity: 1...1,
        arguments: [("on|off", "off: positions are ignored and the selected city is used; on: they are used again.")],
        examples: [("breezectl location off", "drop the live position at once")])

    var enabled: Bool

    init(_ context: CommandContext) throws(CLIError) {
        let word = context.arguments.positional[0]
        guard ["on", "off"].contains(word) else { throw CLIError(.usage, "location takes on or off, not \"\(word)\"") }
        enabled = word == "on"
    }

    func run(_ context: CommandContext) throws(CLIError) {
        try context.request("location", [("enabled", .bool(enabled))])
    }
}
