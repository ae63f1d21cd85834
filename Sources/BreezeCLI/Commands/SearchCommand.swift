import BreezeCore

#if canImport(Glibc)
import Glibc
#endif

/// `breezectl search`: cities by name.
struct SearchCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Search cities by name (at least 2 characters).",
        usage: "search <query>",
        arity: 1...1,
        arguments: [("<query>", "The start of a city's name, in any case, with or without accents (\"zur\", "
            + "\"munchen\"); at least 2 characters.")],
        examples: [
            ("breezectl search zur", "the cities whose names start with \"zur\", with their ids"),
            ("breezectl search 'new y'", "a query with a space, quoted"),
            ("breezectl --json search bern", "one PLACE object per line"),
        ])

    var query: String

    init(_ context: CommandContext) throws(CLIError) {
        let arguments = context.arguments
        guard let query = arguments.positional.first else { throw CLIError(.usage, "usage: breezectl \(Self.help.usage)") }
        guard query.trimmingSpaces().count >= 2 else { throw CLIError(.usage, "a search needs at least 2 characters") }
        self.query = query
    }

    func run(_ context: CommandContext) throws(CLIError) {
        try context.request("search", [("query", .string(query))])
    }
}
