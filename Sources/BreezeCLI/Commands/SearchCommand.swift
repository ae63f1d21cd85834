import BreezeCore

#if canImport(Glibc)
    import Glibc
#endif

/// `breezectl search`: cities by name, once for a query, or live in a full-screen view (`--interactive`, and
/// without a query on a terminal).
struct SearchCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Search cities by name (at least 2 characters).",
        usage: "search <query>",
        arity: 0...Int.max,
        arguments: [
            (
                "<query>",
                "The start of a city's name, in any case, with or without accents (\"zur\", "
                    + "\"munchen\"); at least 2 characters. Its words may be quoted or not (search new york). "
                    + "Left out on a terminal: the interactive view."
            )
        ],
        options: """
              --interactive           A full-screen search: popular and saved cities, then live results as you
                                      type (offline at once, online merged as they arrive). Up/Down or Ctrl-N/
                                      Ctrl-P move, Enter selects (as select), Ctrl-S saves, Ctrl-U clears, Esc
                                      or Ctrl-D leaves, Ctrl-C cancels (exit 130). Needs a terminal on standard
                                      input and output.
              --count <n>             At most n places (1 to 50; 10 when left out).
            """,
        examples: [
            ("breezectl search zur", "the cities whose names start with \"zur\", with their ids"),
            ("breezectl search new y", "a query of several words, quoted or not"),
            ("breezectl --json search bern", "one PLACE object per line"),
            ("breezectl search --count 3 san", "the first three matches"),
            ("breezectl search --interactive", "search as you type, then select or save a city"),
        ])

    /// The query; nil for the interactive view.
    var query: String?

    init(_ context: CommandContext) throws(CLIError) {
        let arguments = context.arguments
        let interactive =
            arguments.interactive
            || (arguments.positional.isEmpty && !arguments.json && context.isTerminal && isatty(0) == 1)
        if interactive {
            guard !arguments.json else { throw CLIError(.usage, "search --interactive is a view: not with --json") }
            guard arguments.positional.isEmpty else {
                throw CLIError(.usage, "search --interactive takes no query: type it in the view")
            }
            guard context.isTerminal, isatty(0) == 1 else {
                throw CLIError(.usage, "search --interactive needs a terminal on standard input and output")
            }
            return
        }
        guard let query = CommandContext.words(arguments.positional) else {
            throw CLIError(.usage, "usage: breezectl \(Self.help.usage)")
        }
        guard query.trimmingSpaces().count >= 2 else { throw CLIError(.usage, "a search needs at least 2 characters") }
        self.query = query
    }

    func run(_ context: CommandContext) throws(CLIError) {
        guard let query else { return try InteractiveSearch(context: context).run() }
        let limit = context.arguments.count ?? 10
        try context.request("search", [("query", .string(query)), ("limit", .number(Double(limit)))]) { answer in
            answer.search(query, limit: limit)
        }
    }
}
