import BreezeCore

/// breezectl's subcommands, each with its usage and a one-line abstract.
enum Subcommand: String, CaseIterable {
    case status, `where`, air, pollen, climate, weather, watch, search, lookup, select, here, saved, popular, location, refresh
    case fleet

    /// The dataset it shows, for `air`, `pollen`, `climate` and `weather`.
    var dataset: Dataset? { Dataset(rawValue: rawValue) }

    var usage: String {
        switch self {
        case .search: "search <query>"
        case .lookup: "lookup <latitude> <longitude>"
        case .select: "select <id-or-query>"
        case .saved: "saved [list | add <id-or-query> | remove <id>]"
        case .location: "location on|off"
        case .watch: "watch [--json | --format <text> | --waybar | --i3bar] [--once]"
        case .fleet: "fleet --mqtt <url> [--ca-file <path>] [--json] [--watch]"
        default: rawValue
        }
    }

    var abstract: String {
        switch self {
        case .status: "Show everything: place, permission, air quality, pollen, climate, weather."
        case .where: "Show where the machine is (or the selected city)."
        case .air: "Show the air quality: US AQI and six pollutants."
        case .pollen: "Show pollen levels."
        case .climate: "Show today's maximum temperature across the decades."
        case .weather: "Show the weather now and the forecast for 7 days."
        case .watch: "Print a line per update until interrupted."
        case .search: "Search cities by name (at least 2 characters)."
        case .lookup: "Name the place at a latitude and longitude."
        case .select: "Use a city instead of the machine's position."
        case .here: "Go back to the machine's own position."
        case .saved: "List, add or remove saved cities."
        case .popular: "List popular cities."
        case .location: "Switch the use of this machine's position on or off."
        case .refresh: "Fetch the data for the current place now and wait for every answer."
        case .fleet: "List every breezed publishing to an MQTT broker: place, fix age, AQI, availability."
        }
    }

    /// The positional arguments it takes.
    var arity: ClosedRange<Int> {
        switch self {
        case .search, .select, .location: 1...1
        case .lookup: 2...2
        case .saved: 0...2
        default: 0...0
        }
    }
}
