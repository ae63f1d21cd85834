import BreezeCore
import BreezeProtocol
import BreezeSystem

/// What every subcommand runs with: the parsed command line, the socket, how to render, where to write.
struct CommandContext {
    var arguments: CommandLineArguments
    var subcommand: Subcommand
    var socket: String
    var dashboard: Dashboard
    var output: TextOutput
    /// Standard output is a terminal: `refresh` shows a progress line there.
    var isTerminal = false
    /// The environment breezectl runs in (`NO_COLOR`, `TERM` for the interactive search).
    var environment: ProcessEnvironment.Variables = [:]

    var json: Bool { arguments.json }

    /// How long to wait for breezed.
    var timeout: Double { arguments.timeout ?? CommandLineArguments.defaultTimeout }

    var renderer: ReplyRenderer {
        ReplyRenderer(
            subcommand: subcommand, json: json, dashboard: dashboard, format: arguments.format,
            waybar: arguments.waybar, i3bar: arguments.i3bar)
    }

    /// A connection to breezed, each wait bounded by `--timeout`.
    func connect() throws(CLIError) -> ControlConnection {
        try ControlConnection(path: socket, timeout: timeout)
    }

    /// Sends one request and prints its reply as the subcommand does.
    ///
    /// With `offline`, a request that only reads the places index (`search`, `lookup`) is answered from the index
    /// when breezed is not running (its socket refuses or is missing; not when it is slow to answer), saying so on
    /// stderr; without an index, breezed's absence is the error it always was.
    func request(
        _ command: String, _ requestArguments: [(String, JSONValue)] = [],
        offline: ((PlacesIndexAnswer) throws(CLIError) -> JSONValue)? = nil
    ) throws(CLIError) {
        let reply: JSONValue
        var connected = false
        do throws(CLIError) {
            let connection = try connect()
            connected = true
            let id = try connection.send(command, requestArguments)
            reply = try connection.reply(to: id)
        } catch {
            // Not running, or running and not answering (in time: stopped or stuck; or at its client limit, or
            // stopping): what only reads the index is answered from it.
            guard let offline, error.kind == .unreachable,
                let answer = PlacesIndexAnswer(environment: environment)
            else { throw error }
            let reply = try offline(answer)
            output.error(connected ? answer.notAnsweringNotice(error.message) : answer.notice)
            write(reply)
            return
        }
        write(reply)
    }

    /// A reply as the subcommand prints it; a failed online search said on stderr, beside the offline results.
    private func write(_ reply: JSONValue) {
        output.write(renderer.reply(reply))
        if !arguments.json { output.error(ReplyRenderer.onlineFailure(reply)) }
    }

    /// The words of a name as typed, quoted or not ("new york", or new and york), joined by single spaces; nil when
    /// there are none.
    static func words(_ arguments: some Collection<String>) -> String? {
        let words = arguments.flatMap { $0.split(whereSeparator: \.isWhitespace) }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// A city given as a GeoNames id or a query. A number that no GeoNames id can be is a usage error.
    static func cityArgument(_ text: String) throws(CLIError) -> (String, JSONValue) {
        guard let id = Int(text) else { return ("query", .string(text)) }
        guard id >= 1 else {
            throw CLIError(
                .usage,
                "\(id) is not a GeoNames id (they are whole numbers from 1); 'breezectl search NAME' lists places "
                    + "with their ids")
        }
        return ("city", .number(Double(id)))
    }

    /// Another place's objects by class, from a `look`: its `PLACE`, and the dataset the subcommand shows (every
    /// dataset for `status`).
    func look(at place: String, _ connection: ControlConnection) throws(CLIError) -> [String: JSONValue] {
        var arguments = [try Self.cityArgument(place)]
        if let dataset = subcommand.dataset { arguments.append(("classes", .array([.string(dataset.className)]))) }
        let id = try connection.send("look", arguments)
        let reply = try connection.reply(to: id)
        guard reply["class"]?.stringValue == "LOOK", let placeObject = reply["place"],
            case .array(let datasets)? = reply["datasets"]
        else {
            let what = reply["class"]?.displayText ?? "an object without a class"
            throw CLIError(.failure, "breezed answered the look with \(what), not LOOK")
        }
        var objects = ["PLACE": placeObject]
        for object in datasets {
            if let className = object["class"]?.stringValue { objects[className] = object }
        }
        return objects
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
}
