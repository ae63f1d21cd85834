/// `breezectl lookup`: the place at a position, through the places index.
struct LookupCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Name the place at a latitude and longitude.",
        usage: "lookup <latitude> <longitude>",
        arity: 2...2,
        arguments: [
            ("<latitude>", "Degrees north, -90 to 90; south is negative."),
            ("<longitude>", "Degrees east, -180 to 180; west is negative."),
        ],
        discussion: "A negative number is a value, never an option; '--' ends the options in any case.",
        examples: [
            ("breezectl lookup 46.948 7.447", "Bern, Switzerland, and how far its centre is"),
            ("breezectl lookup -33.8688 151.2093", "Sydney, Australia"),
            ("breezectl lookup -- -22.9 -43.2", "after '--', every argument is a value"),
        ])

    var latitude: Double
    var longitude: Double

    init(_ context: CommandContext) throws(CLIError) {
        let positional = context.arguments.positional
        guard let latitude = Double(positional[0]), let longitude = Double(positional[1]) else {
            throw CLIError(.usage, "lookup takes two numbers: breezectl lookup <latitude> <longitude>")
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
