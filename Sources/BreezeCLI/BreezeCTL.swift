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
        isTerminal: Bool = isatty(1) == 1, output: TextOutput = .process
    ) -> Int32 {
        if arguments.first == "completion" { return ShellCompletion.run(Array(arguments.dropFirst()), output: output) }
        do throws(CLIError) {
            let parsed = try CommandLineArguments.parse(arguments)
            if parsed.version {
                output.write("breezectl \(version)\n")
                return 0
            }
            if parsed.help {
                output.write(parsed.subcommand.map(HelpText.subcommand) ?? HelpText.main)
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
                dashboard: Dashboard(unit: unit, color: color), output: output)
            try run.execute()
            return 0
        } catch {
            var text = "breezectl: \(error.message)\n"
            if error.kind == .usage { text += "Run 'breezectl --help' for usage.\n" }
            output.error(text)
            return error.kind.rawValue
        }
    }
}

/// One run of a subcommand.
struct Run {
    var arguments: CommandLineArguments
    var subcommand: Subcommand
    var socket: String
    var dashboard: Dashboard
    var output: TextOutput

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

        let connection = try ControlConnection(
            path: socket, timeout: arguments.timeout ?? CommandLineArguments.defaultTimeout)
        switch subcommand {
        case .status, .where, .air, .pollen, .climate, .weather:
            output.write(renderer.snapshot(try self.snapshot(connection)))
        case .watch:
            try watch(connection)
        case .search:
            let id = try connection.send("search", [("query", .string(positional[0]))])
            output.write(renderer.reply(try connection.reply(to: id)))
        case .popular:
            let id = try connection.send("popular")
            output.write(renderer.reply(try connection.reply(to: id)))
        case .lookup:
            let id = try connection.send("lookup", [("latitude", .number(coordinate!.0)), ("longitude", .number(coordinate!.1))])
            output.write(renderer.reply(try connection.reply(to: id)))
        case .select:
            let id = try connection.send("select", [Self.cityArgument(positional[0])])
            output.write(renderer.reply(try connection.reply(to: id)))
        case .here:
            let id = try connection.send("here")
            output.write(renderer.reply(try connection.reply(to: id)))
        case .saved:
            let action = positional.first ?? "list"
            var requestArguments: [(String, JSONValue)] = [("action", .string(action))]
            if action != "list" { requestArguments.append(Self.cityArgument(positional[1])) }
            let id = try connection.send("saved", requestArguments)
            output.write(renderer.reply(try connection.reply(to: id)))
        case .location:
            let id = try connection.send("location", [("enabled", .bool(positional[0] == "on"))])
            output.write(renderer.reply(try connection.reply(to: id)))
        case .refresh:
            let id = try connection.send("refresh")
            output.write(renderer.reply(try connection.reply(to: id)))
        }
    }

    private var renderer: ReplyRenderer {
        ReplyRenderer(
            subcommand: subcommand, json: json, dashboard: dashboard, format: arguments.format, waybar: arguments.waybar)
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
            if let className = object["class"]?.stringValue { objects[className] = ReplyRenderer.withoutID(object) }
        }
        return objects
    }

    // MARK: watch

    func watch(_ connection: ControlConnection) throws(CLIError) {
        let id = try connection.send("watch")
        var latest: [String: JSONValue] = [:]
        var answered = false
        while let message = try connection.next() {
            // The timeout bounds the wait for the daemon's first answer; updates may be hours apart.
            if !answered {
                answered = true
                connection.waitWithoutLimit()
            }
            guard let className = message["class"]?.stringValue else { continue }
            if className == "ERROR" {
                if message["id"] == .number(Double(id)) { throw CLIError(daemonError: message) }
                throw CLIError(.unreachable, "breezed: \(message["message"]?.displayText ?? "closed the connection")")
            }
            if let line = renderer.update(message, latest: &latest) { output.write(line) }
        }
        throw CLIError(.unreachable, "breezed closed the connection")
    }
}
