import BreezeCore
import BreezeMQTT
import BreezeProtocol

/// One line from breezed rendered as breezectl prints it for a subcommand, with no I/O: the entry point for tests
/// and the fuzz target of breezectl's reply handling.
public enum ReplyText {
    /// Renders `line` (one line's bytes, without its newline) as `command` (status, where, air, search, watch, …)
    /// prints it; an `ERROR` object or a line that is not a JSON object renders as the message breezectl gives.
    public static func render(
        _ line: [UInt8], command: String, json: Bool = false, format: String? = nil, waybar: Bool = false,
        i3bar: Bool = false, unit: TemperatureUnit = .celsius
    ) -> String {
        let renderer = ReplyRenderer(
            subcommand: Subcommand(rawValue: command) ?? .status, json: json,
            dashboard: Dashboard(unit: unit, color: false), format: format, waybar: waybar, i3bar: i3bar)
        guard let text = String(validating: line, as: UTF8.self) else {
            return "breezed sent a line that is not UTF-8 text\n"
        }
        let message: JSONValue
        do throws(ProtocolError) {
            message = try JSONValue.parse(text)
        } catch {
            return "breezed sent a line that is not JSON: \(error.message)\n"
        }
        if message["class"]?.stringValue == "ERROR" { return CLIError(daemonError: message).message + "\n" }
        return renderer.reply(message)
    }

    /// `fleet`'s table for nodes that published `location` (breezed's `LOCATION` object, one line each), with
    /// ages counted to `now` (Unix seconds).
    public static func fleet(_ locations: [(node: String, location: String)], now: Double) throws -> String {
        let nodes = locations.map { entry in
            Fleet.Node(name: entry.node, availability: "online", location: try? JSONValue.parse(entry.location))
        }
        let fleet = Fleet(
            broker: try MQTTBroker(url: "mqtt://localhost"), caFile: nil, json: false, watch: false, timeout: 1,
            output: TextOutput(standard: { _ in }, error: { _ in }), now: { now })
        return fleet.render(nodes, header: true)
    }

    /// What a text `watch` prints for `lines` (breezed's objects, one a line, in the order sent): a line for each
    /// that shows something new (`WatchNews`).
    public static func watchText(_ lines: [String]) -> String {
        let renderer = ReplyRenderer(
            subcommand: .watch, json: false, dashboard: Dashboard(unit: .celsius, color: false), format: nil,
            waybar: false, i3bar: false)
        var latest: [String: JSONValue] = [:]
        var news = WatchNews()
        var text = ""
        for line in lines {
            guard let message = try? JSONValue.parse(line), let className = message["class"]?.stringValue,
                let printed = renderer.update(message, latest: &latest), news.isNews(className, message, line: printed)
            else { continue }
            text += printed
        }
        return text
    }

    /// What `status` prints for a snapshot of `lines` (breezed's objects, one a line), ages counted to `now`.
    public static func statusText(_ lines: [String], now: Double) -> String {
        let renderer = ReplyRenderer(
            subcommand: .status, json: false, dashboard: Dashboard(unit: .celsius, color: false, now: now),
            format: nil, waybar: false, i3bar: false)
        var snapshot: [String: JSONValue] = [:]
        for line in lines {
            if let message = try? JSONValue.parse(line) { StatusBar.remember(message, in: &snapshot) }
        }
        return renderer.snapshot(snapshot)
    }

    /// The status-bar line `watch` prints after `lines` (breezed's objects, one a line, in the order sent), with
    /// ages counted to `now` (Unix seconds), or while breezed cannot be reached when `outage` gives the reason.
    public static func statusBar(
        _ lines: [String], format: String? = nil, waybar: Bool = false, i3bar: Bool = false, now: Double,
        outage: String? = nil
    ) -> String {
        let renderer = ReplyRenderer(
            subcommand: .watch, json: false, dashboard: Dashboard(unit: .celsius, color: false, now: now),
            format: format, waybar: waybar, i3bar: i3bar)
        var latest: [String: JSONValue] = [:]
        for line in lines {
            if let message = try? JSONValue.parse(line) { StatusBar.remember(message, in: &latest) }
        }
        if let outage { return renderer.outageLine(outage) }
        return renderer.barLine(latest)
    }
}
