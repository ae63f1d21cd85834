import BreezeCore
import BreezeProtocol
import FoundationEssentials
import Glibc

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
                dashboard: Dashboard(unit: unit, color: color), output: output, isTerminal: isTerminal)
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
    /// Standard output is a terminal: `refresh` shows a progress line there.
    var isTerminal = false

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
        if subcommand == .search, positional[0].trimmingSpaces().count < 2 {
            throw CLIError(.usage, "a search needs at least 2 characters")
        }
        if subcommand == .saved, let action = positional.first {
            guard ["list", "add", "remove"].contains(action) else {
                throw CLIError(.usage, "saved takes list, add or remove, not \"\(action)\"")
            }
            if action != "list" && positional.count < 2 { throw CLIError(.usage, "usage: breezectl \(subcommand.usage)") }
            if action == "remove" && Int(positional[1]) == nil { throw CLIError(.usage, "saved remove takes a city id") }
        }

        if subcommand == .watch { return try watch() }
        if subcommand == .fleet {
            return try Fleet(
                url: arguments.mqtt ?? "", caFile: arguments.caFile, json: json, watch: arguments.watch,
                timeout: arguments.timeout ?? CommandLineArguments.defaultTimeout, output: output
            ).run()
        }
        let connection = try ControlConnection(
            path: socket, timeout: arguments.timeout ?? CommandLineArguments.defaultTimeout)
        switch subcommand {
        case .status, .where, .air, .pollen, .climate, .weather:
            let snapshot = try self.snapshot(connection)
            output.write(renderer.snapshot(snapshot))
            if let dataset = subcommand.dataset { try Self.requireData(dataset, in: snapshot) }
        case .watch:
            try watch()
        case .fleet:
            break
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
            try refresh(connection)
        }
    }

    /// `air`, `pollen`, `climate`, `weather` succeed only with data, fresh or stale. Without it: 75 while trying
    /// again may help (no place yet, loading, the fetch failed), 69 when it cannot (the provider has nothing
    /// here, web requests are off); the reason goes to stderr, after what the dataset shows.
    static func requireData(_ dataset: Dataset, in snapshot: [String: JSONValue]) throws(CLIError) {
        let name = dataset == .air ? "air-quality" : dataset.rawValue
        let object = snapshot[dataset.className]
        let reason = object?["reason"]?.displayText.map { ": " + $0 } ?? ""
        switch object?["state"]?.stringValue {
        case "fresh", "stale":
            return
        case "unavailable":
            throw CLIError(.unreachable, "no \(name) data for this place\(reason)")
        case "offline":
            let why = object?["reason"]?.displayText ?? "web requests are off"
            throw CLIError(.unreachable, "no \(name) data: \(why)")
        case "failed":
            throw CLIError(.temporaryFailure, "no \(name) data: the fetch failed\(reason)")
        default:
            guard snapshot["LOCATION"]?["name"]?.stringValue != nil else {
                throw CLIError(.temporaryFailure, "no \(name) data: no place yet")
            }
            throw CLIError(.temporaryFailure, "no \(name) data yet: it is being fetched")
        }
    }

    /// `refresh`: every dataset fetched now, waiting (at most `--timeout`) for each one's answer. A dataset that
    /// failed exits 75 naming it; the time passing first exits 69, as any wait for breezed does.
    func refresh(_ connection: ControlConnection) throws(CLIError) {
        let timeout = arguments.timeout ?? CommandLineArguments.defaultTimeout
        let seconds = printfFormat("%g", ControlConnection.bounded(timeout))
        let id = try connection.send("refresh", [("wait", .bool(true))])
        let progress = isTerminal && !json
        if progress { output.write("Refreshing the data (waiting up to \(seconds) s)…") }
        let reply: JSONValue
        do throws(CLIError) {
            reply = try connection.reply(to: id)
            if progress { output.write("\r\u{1B}[K") }
        } catch {
            if progress { output.write("\r\u{1B}[K") }
            guard error.timedOut else { throw error }
            throw CLIError(.unreachable, "the refresh did not finish within \(seconds) s", timedOut: true)
        }
        output.write(renderer.reply(reply))
        // A daemon that does not wait answers at once, with no datasets.
        guard case .array(let datasets)? = reply["datasets"] else { return }
        func names(where include: (JSONValue) -> Bool) -> [String] {
            datasets.filter(include).map { dataset in
                let name = dataset["class"]?.displayText ?? "?"
                return dataset["reason"]?.displayText.map { "\(name) (\($0))" } ?? name
            }
        }
        // Stale with a reason: kept through a failure of this refresh.
        let failed = names { dataset in
            dataset["state"] == .string("failed") || dataset["state"] == .string("stale") && dataset["reason"] != nil
        }
        if !failed.isEmpty {
            throw CLIError(.temporaryFailure, "the refresh failed for \(failed.joined(separator: ", "))")
        }
        let waiting = names { $0["state"] == .string("loading") }
        if !waiting.isEmpty {
            throw CLIError(
                .unreachable, "no answer for \(waiting.joined(separator: ", ")) within breezed's limit", timedOut: true)
        }
    }

    private var renderer: ReplyRenderer {
        ReplyRenderer(
            subcommand: subcommand, json: json, dashboard: dashboard, format: arguments.format, waybar: arguments.waybar,
            i3bar: arguments.i3bar)
    }

    /// A city given as a GeoNames id or a query.
    static func cityArgument(_ text: String) -> (String, JSONValue) {
        if let id = Int(text) { return ("city", .number(Double(id))) }
        return ("query", .string(text))
    }

    /// The current objects by class: `status`, then `version`, whose reply marks the end of the snapshot (and
    /// carries the MQTT link's state, kept as an `MQTT` object, when breezed publishes to a broker).
    func snapshot(_ connection: ControlConnection) throws(CLIError) -> [String: JSONValue] {
        let id = try connection.send("status")
        let end = try connection.send("version")
        var objects: [String: JSONValue] = [:]
        let found = try connection.replies(to: id, until: end) { version in
            if case .object(let members)? = version["mqtt"] {
                objects["MQTT"] = .object([("class", .string("MQTT"))] + members.filter { $0.0 != "class" })
            }
        }
        for object in found {
            if let className = object["class"]?.stringValue { objects[className] = ReplyRenderer.withoutID(object) }
        }
        return objects
    }

    // MARK: watch

    /// Follows breezed's updates, outliving its restarts (see `WatchLoop`): it connects by itself.
    func watch() throws(CLIError) {
        try WatchLoop(
            socket: socket, timeout: arguments.timeout ?? CommandLineArguments.defaultTimeout, renderer: renderer,
            output: output, once: arguments.once
        ).run()
    }
}
