import BreezeCore
import BreezeProtocol

/// The subcommands that print part of breezed's current state (`status`, `where`, `air`, `pollen`, `climate`,
/// `weather`): the same request, each with its own help. Given the words of a place (`status` and the datasets
/// take them), they print that place's data instead, from a `look`: breezed's own place stays as it is.
protocol SnapshotCommand: BreezectlCommand {
    init()
}

extension SnapshotCommand {
    init(_ context: CommandContext) throws(CLIError) {
        self.init()
    }

    func run(_ context: CommandContext) throws(CLIError) {
        let place = CommandContext.words(context.arguments.positional)
        if let place { _ = try CommandContext.cityArgument(place) }  // a usage error before connecting
        let connection = try context.connect()
        let snapshot: [String: JSONValue]
        if let place {
            snapshot = try context.look(at: place, connection)
        } else {
            snapshot = try context.snapshot(connection)
        }
        // `status --format` and `where --format`: one line, as `watch --once --format` prints it (a look's place
        // stands where the location would).
        if context.renderer.isBar {
            var latest = snapshot
            if let place = snapshot["PLACE"] { latest["LOCATION"] = place }
            context.output.write(context.renderer.barLine(latest))
            return
        }
        context.output.write(context.renderer.snapshot(snapshot))
        if let dataset = context.subcommand.dataset { try Self.requireData(dataset, in: snapshot) }
    }

    /// `air`, `pollen`, `climate`, `weather` succeed only with data, fresh or stale. Without it: 75 while trying
    /// again may help (no place yet, loading, the fetch failed), 69 when it cannot (the provider has nothing
    /// here, web requests are off); the reason goes to stderr, after what the dataset shows.
    static func requireData(_ dataset: Dataset, in snapshot: [String: JSONValue]) throws(CLIError) {
        let name = DatasetViews.view(dataset)?.noun ?? dataset.rawValue
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
}
