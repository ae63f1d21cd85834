/// `breezectl lookup`: the place at a position, through the places index.
struct LookupCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Name the place at a latitude and longitude.",
        usage: "lookup <latitude> <longitude>",
        arity: 1...2,
        arguments: [
            ("<latitude>", "Degrees north, -90 to 90; south is negative."),
            ("<longitude>", "Degrees east, -180 to 180; west is negative."),
        ],
        discussion: "The two may be one argument, as a map copies them (47.4,8.6 or '47.4, 8.6'). A negative "
            + "number is a value, never an option; '--' ends the options in any case.",
        examples: [
            ("breezectl lookup 46.948 7.447", "Bern, Switzerland, and how far its centre is"),
            ("breezectl lookup -33.8688 151.2093", "Sydney, Australia"),
            ("breezectl lookup 47.37,8.54", "Zurich, as a map copies a position"),
            ("breezectl lookup -- -22.9 -43.2", "after '--', every argument is a value"),
        ])

    var latitude: Double
    var longitude: Double

    init(_ context: CommandContext) throws(CLIError) {
        // One argument is a pair as maps copy it: "47.4,8.6", "47.4, 8.6".
        let numbers =
            context.arguments.positional.count == 1
            ? context.arguments.positional[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            : context.arguments.positional
        guard numbers.count == 2, let latitude = Double(numbers[0].trimmingSpaces()),
            let longitude = Double(numbers[1].trimmingSpaces()), latitude.isFinite, longitude.isFinite
        else {
            throw CLIError(
                .usage,
                "lookup takes a latitude and a longitude in degrees, such as 47.37 8.54 or 47.37,8.54; got "
                    + "\"\(TerminalText.escaped(context.arguments.positional.joined(separator: " ")))\"")
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    func run(_ context: CommandContext) throws(CLIError) {
        try context.request("lookup", [("latitude", .number(latitude)), ("longitude", .number(longitude))]) {
            answer throws(CLIError) in try answer.lookup(latitude: latitude, longitude: longitude)
        }
    }
}
