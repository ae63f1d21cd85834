import BreezeCore
import BreezeProtocol
import Foundation

/// breezectl: parse, validate, run one subcommand against breezed's socket.
public enum BreezeCTL {
    public static let version = "0.1.0"
    public static let defaultSocket = "/run/breezed/breezed.sock"

    /// Runs with `arguments` (after the program name) and returns the exit status.
    public static func main(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        isTerminal: Bool = isatty(1) == 1
    ) -> Int32 {
        do throws(CLIError) {
            let parsed = try CommandLineArguments.parse(arguments)
            if parsed.version {
                write("breezectl \(version)\n")
                return 0
            }
            if parsed.help {
                write(parsed.subcommand.map(HelpText.subcommand) ?? HelpText.main)
                return 0
            }
            guard let subcommand = parsed.subcommand else {
                throw CLIError(.usage, "a subcommand is needed")
            }
            guard subcommand.arity.contains(parsed.positional.count) else {
                throw CLIError(.usage, "usage: breezectl \(subcommand.usage)")
            }
            let locale = environment["LC_ALL"] ?? environment["LC_MESSAGES"] ?? environment["LANG"]
            let unit = parsed.units.flatMap(TemperatureUnit.init(rawValue:)) ?? TemperatureUnit.preferred(forLocale: locale)
            let color = isTerminal && environment["NO_COLOR"].map(\.isEmpty) ?? true && environment["TERM"] != "dumb"
            var run = Run(
                arguments: parsed, subcommand: subcommand,
                socket: parsed.socket ?? environment["BREEZE_SOCKET"] ?? defaultSocket,
                dashboard: Dashboard(unit: unit, color: color))
            try run.execute()
            return 0
        } catch {
            var text = "breezectl: \(error.message)\n"
            if error.kind == .usage { text += "Run 'breezectl --help' for usage.\n" }
            FileHandle.standardError.write(Data(text.utf8))
            return error.kind.rawValue
        }
    }

    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}

/// One run of a subcommand.
struct Run {
    var arguments: CommandLineArguments
    var subcommand: Subcommand
    var socket: String
    var dashboard: Dashboard

    private var json: Bool { arguments.json }

    mutating func execute() throws(CLIError) {
        // Validate before connecting, so a usage error is one whatever the daemon's state.
        let positional = arguments.positional
        var coordinate: (Double, Double)?
        if subcommand == .lookup {
            guard let latitude = Double(positional[0]), let longitude = Double(positional[1]) else {
                throw CLIError(.usage, "lookup takes two numbers: breezectl lookup <latitude> <longitude>")
            }
            coordinate = (latitude, longitude)
        }
        if subcommand == .location, !["on", "off"].contains(positional[0]) {
            throw CLIError(.usage, "location takes on or off, not \"\(positional[0])\"")
        }
        if subcommand == .search, positional[0].trimmingCharacters(in: .whitespaces).count < 2 {
            throw CLIError(.usage, "a search needs at least 2 characters")
        }
        if subcommand == .saved, let action = positional.first {
            guard ["list", "add", "remove"].contains(action) else {
                throw CLIError(.usage, "saved takes list, add or remove, not \"\(action)\"")
            }
            if action != "list" && positional.count < 2 { throw CLIError(.usage, "usage: breezectl \(subcommand.usage)") }
            if action == "remove" && Int(positional[1]) == nil { throw CLIError(.usage, "saved remove takes a city id") }
        }

        let connection = try ControlConnection(path: socket)
        switch subcommand {
        case .status, .where, .air, .pollen, .climate:
            let snapshot = try self.snapshot(connection)
            show(snapshot)
        case .watch:
            try watch(connection)
        case .search:
            let id = try connection.send("search", [("query", .string(positional[0]))])
            try showPlaces(try connection.reply(to: id))
        case .popular:
            let id = try connection.send("popular")
            try showPlaces(try connection.reply(to: id))
        case .lookup:
            let id = try connection.send("lookup", [("latitude", .number(coordinate!.0)), ("longitude", .number(coordinate!.1))])
            let place = try connection.reply(to: id)
            if json { return printJSON(place) }
            let distance = place["distance_m"]?.numberValue.map { String(format: " (%.1f km away)", $0 / 1000) } ?? ""
            BreezeCTL.write("\(place["name"]?.stringValue ?? "?")\(distance)\n")
        case .select:
            let id = try connection.send("select", [Self.cityArgument(positional[0])])
            try showLocation(try connection.reply(to: id))
        case .here:
            let id = try connection.send("here")
            try showLocation(try connection.reply(to: id))
        case .saved:
            let action = positional.first ?? "list"
            var requestArguments: [(String, JSONValue)] = [("action", .string(action))]
            if action != "list" { requestArguments.append(Self.cityArgument(positional[1])) }
            let id = try connection.send("saved", requestArguments)
            try showPlaces(try connection.reply(to: id))
        case .location:
            let id = try connection.send("location", [("enabled", .bool(positional[0] == "on"))])
            let permission = try connection.reply(to: id)
            if json { return printJSON(permission) }
            BreezeCTL.write(dashboard.location(nil, permission: permission).dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n") + "\n")
        case .refresh:
            let id = try connection.send("refresh")
            _ = try connection.reply(to: id)
            if !json { BreezeCTL.write("Fetching the data now.\n") } else { printJSON(.object([("class", .string("OK"))])) }
        }
    }

    /// A city given as a GeoNames id or a query.
    static func cityArgument(_ text: String) -> (String, JSONValue) {
        if let id = Int(text) { return ("city", .number(Double(id))) }
        return ("query", .string(text))
    }

    /// The current objects by class: `status`, then `version`, whose reply marks the end of the snapshot.
    func snapshot(_ connection: ControlConnection) throws(CLIError) -> [String: JSONValue] {
        let id = try connection.send("status")
        let end = try connection.send("version")
        var objects: [String: JSONValue] = [:]
        for object in try connection.replies(to: id, until: end) {
            if let className = object["class"]?.stringValue { objects[className] = Self.withoutID(object) }
        }
        return objects
    }

    static func withoutID(_ object: JSONValue) -> JSONValue {
        guard case .object(let members) = object else { return object }
        return .object(members.filter { $0.0 != "id" })
    }

    func printJSON(_ object: JSONValue) {
        BreezeCTL.write(Self.withoutID(object).encoded() + "\n")
    }

    func show(_ snapshot: [String: JSONValue]) {
        switch subcommand {
        case .where:
            guard let location = snapshot["LOCATION"] else {
                if json { printJSON(snapshot["PERMISSION"] ?? .object([("class", .string("LOCATION")), ("name", .null)])) }
                else { BreezeCTL.write(dashboard.location(nil, permission: snapshot["PERMISSION"]).joined(separator: "\n") + "\n") }
                return
            }
            if json { return printJSON(location) }
            BreezeCTL.write(dashboard.location(location, permission: snapshot["PERMISSION"]).joined(separator: "\n") + "\n")
        case .air, .pollen, .climate:
            let className = subcommand.rawValue.uppercased()
            if json { return printJSON(snapshot[className] ?? .object([("class", .string(className)), ("state", .string("loading"))])) }
            let lines = switch subcommand {
            case .air: dashboard.air(snapshot["AIR"])
            case .pollen: dashboard.pollen(snapshot["POLLEN"])
            default: dashboard.climate(snapshot["CLIMATE"])
            }
            BreezeCTL.write(lines.joined(separator: "\n") + "\n")
        default:
            if json {
                for className in ["PERMISSION", "LOCATION", "AIR", "POLLEN", "CLIMATE"] {
                    if let object = snapshot[className] { printJSON(object) }
                }
                return
            }
            let sections = [
                dashboard.location(snapshot["LOCATION"], permission: snapshot["PERMISSION"]),
                dashboard.air(snapshot["AIR"]), dashboard.pollen(snapshot["POLLEN"]), dashboard.climate(snapshot["CLIMATE"]),
            ]
            BreezeCTL.write(sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n")
        }
    }

    func showLocation(_ location: JSONValue) throws(CLIError) {
        if json { return printJSON(location) }
        BreezeCTL.write(dashboard.location(location, permission: nil).joined(separator: "\n") + "\n")
    }

    func showPlaces(_ reply: JSONValue) throws(CLIError) {
        if json {
            if case .array(let places)? = reply["places"] { places.forEach(printJSON) }
            return
        }
        guard case .array(let places)? = reply["places"], !places.isEmpty else {
            BreezeCTL.write("No cities.\n")
            return
        }
        for place in places {
            let id = place["geoname_id"]?.numberValue.map { String(Int($0)) } ?? ""
            var name = place["city"]?.stringValue ?? "?"
            if let admin = place["admin1"]?.stringValue, !admin.isEmpty, admin != name { name += ", \(admin)" }
            name += ", " + (place["country"]?.stringValue ?? "")
            BreezeCTL.write(id.padding(toLength: 10, withPad: " ", startingAt: 0) + name + "\n")
        }
    }

    // MARK: watch

    func watch(_ connection: ControlConnection) throws(CLIError) {
        let id = try connection.send("watch")
        var latest: [String: JSONValue] = [:]
        while let message = try connection.next() {
            guard let className = message["class"]?.stringValue else { continue }
            if className == "ERROR" {
                if message["id"] == .number(Double(id)) { throw CLIError(daemonError: message) }
                throw CLIError(.unreachable, "breezed: \(message["message"]?.stringValue ?? "closed the connection")")
            }
            if className == "VERSION" || className == "WATCH" { continue }
            latest[className] = message
            if json {
                printJSON(message)
            } else if arguments.waybar {
                BreezeCTL.write(WatchLine.waybar(latest) + "\n")
            } else if let format = arguments.format {
                BreezeCTL.write(WatchLine.format(format, latest) + "\n")
            } else {
                BreezeCTL.write(WatchLine.text(className, message, dashboard) + "\n")
            }
        }
        throw CLIError(.unreachable, "breezed closed the connection")
    }
}
