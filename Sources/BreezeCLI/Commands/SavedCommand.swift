import BreezeCore
import BreezeProtocol
// The standard library's own canonical decomposition (Foundation's needs ICU).
@_spi(_Unicode) import Swift

/// `breezectl saved`: the saved cities, listed, added to or removed from.
struct SavedCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "List, add or remove saved cities.",
        usage: "saved [list | add <id-or-query> | remove|rm <id-or-name>]",
        arity: 0...Int.max,
        arguments: [
            ("list", "The saved cities, with their ids (what saved alone does)."),
            ("add <id-or-query>", "Save a city: a GeoNames id, or a name (its best match, as select takes it)."),
            (
                "remove <id-or-name>",
                "Remove a saved city (rm for short): its id, or its name as saved (\"Zurich\" or "
                    + "\"Zurich, Switzerland\", in any case, with or without accents), or what saved add took."
            ),
        ],
        examples: [
            ("breezectl saved add Oslo", "save the best match for \"Oslo\""),
            ("breezectl saved", "list them"),
            ("breezectl saved remove Oslo", "remove it by name"),
            ("breezectl saved remove 3143244", "or by id"),
        ])

    enum Action: Equatable {
        case list
        case add(String)
        case remove(String)
    }

    var action: Action

    init(_ context: CommandContext) throws(CLIError) {
        let positional = context.arguments.positional
        switch positional.first {
        case nil, "list":
            guard positional.count <= 1 else { throw CLIError(.usage, "usage: breezectl \(Self.help.usage)") }
            action = .list
        case "add", "remove", "rm":
            guard let city = CommandContext.words(positional.dropFirst()) else {
                throw CLIError(.usage, "usage: breezectl \(Self.help.usage)")
            }
            if positional[0] == "add" { _ = try CommandContext.cityArgument(city) }  // before connecting
            action = positional[0] == "add" ? .add(city) : .remove(city)
        case let other?:
            throw CLIError(.usage, "saved takes list, add, remove or rm, not \"\(other)\"")
        }
    }

    func run(_ context: CommandContext) throws(CLIError) {
        switch action {
        case .list:
            try context.request("saved", [("action", .string("list"))])
        case .add(let city):
            try context.request("saved", [("action", .string("add")), try CommandContext.cityArgument(city)])
        case .remove(let city):
            let connection = try context.connect()
            let id: Int
            if let number = Int(city) {
                id = number
            } else {
                let list = try connection.send("saved", [("action", .string("list"))])
                id = try Self.savedID(named: city, in: try connection.reply(to: list))
            }
            let remove = try connection.send("saved", [("action", .string("remove")), ("city", .number(Double(id)))])
            context.output.write(context.renderer.reply(try connection.reply(to: remove)))
        }
    }

    /// The id of the one saved city called `name`: its city name, its full name, the name `saved` prints ("Portland,
    /// Maine, United States"), or a city name narrowed by commas as `saved add` takes it ("Portland, Maine",
    /// "Portland, US": each part after the first the start of its region or country, or its country code); folded.
    /// None is a failure as the daemon's `not-found` is, several a usage error telling them apart.
    static func savedID(named name: String, in reply: JSONValue) throws(CLIError) -> Int {
        guard case .array(let places)? = reply["places"] else {
            throw CLIError(.failure, "breezed sent no saved cities")
        }
        let matches = places.filter { isCalled(name, $0) }
        let ids = matches.compactMap { $0["geoname_id"]?.numberValue.flatMap { Int(exactly: $0) } }
        guard !ids.isEmpty else {
            throw CLIError(
                .failure, "no saved city is called \"\(TerminalText.escaped(name))\" ('breezectl saved' lists them)")
        }
        guard ids.count == 1 else {
            let listed = zip(matches, ids).map { "\(ReplyRenderer.listedName($0)) (\($1))" }
            throw CLIError(
                .usage,
                "several saved cities are called \"\(TerminalText.escaped(name))\": "
                    + listed.joined(separator: "; ") + "; give the id or the region")
        }
        return ids[0]
    }

    /// Whether `name` names the saved city `place`, as `savedID` takes names.
    private static func isCalled(_ name: String, _ place: JSONValue) -> Bool {
        let wanted = folded(name)
        let city = place["city"]?.stringValue.map(folded) ?? ""
        if [city, place["name"]?.stringValue.map(folded), folded(ReplyRenderer.listedName(place))].contains(wanted) {
            return true
        }
        let parts = name.split(separator: ",", omittingEmptySubsequences: false).map { folded(String($0)) }
        guard parts.count > 1, parts[0] == city else { return false }
        let region = place["admin1"]?.stringValue.map(folded) ?? ""
        let country = place["country"]?.stringValue.map(folded) ?? ""
        let code = place["country_code"]?.stringValue.map(folded) ?? ""
        return parts.dropFirst().filter { !$0.isEmpty }.allSatisfy { part in
            part == code || (!region.isEmpty && region.hasPrefix(part)) || country.hasPrefix(part)
        }
    }

    /// A name as compared: case and diacritics ignored (the marks of its canonical decomposition dropped), spaces
    /// around trimmed.
    static func folded(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.trimmingSpaces()._nfd where scalar.properties.generalCategory != .nonspacingMark {
            scalars.append(scalar)
        }
        return String(scalars).lowercased()
    }
}
