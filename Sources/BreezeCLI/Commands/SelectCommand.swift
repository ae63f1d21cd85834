/// `breezectl select`: a city in place of the machine's position.
struct SelectCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Use a city instead of the machine's position.",
        usage: "select <id-or-query>",
        arity: 1...Int.max,
        arguments: [
            (
                "<id-or-query>",
                "A GeoNames id (as search lists them), or a name (its words quoted or not): the most populous place "
                    + "of that very name, else the search's first match."
            )
        ],
        discussion: "The city stays selected until 'breezectl here'; data is fetched for it at once.",
        examples: [
            ("breezectl select Zurich", "the best match for \"Zurich\""),
            ("breezectl select portland, maine", "a name of several words, narrowed by a region"),
            ("breezectl select 2657896", "the city with that GeoNames id"),
            ("breezectl here", "back to the machine's own position"),
        ])

    var city: String

    init(_ context: CommandContext) throws(CLIError) {
        city = CommandContext.words(context.arguments.positional) ?? ""
        _ = try CommandContext.cityArgument(city)  // a usage error before connecting
    }

    func run(_ context: CommandContext) throws(CLIError) {
        try context.request("select", [try CommandContext.cityArgument(city)])
    }
}
