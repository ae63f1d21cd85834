import BreezeCore
import BreezeProtocol

/// The text breezectl prints for the daemon's objects, for one subcommand: no I/O, so that any reply can be
/// rendered in a test or a fuzz target.
struct ReplyRenderer {
    var subcommand: Subcommand
    var json: Bool
    var dashboard: Dashboard
    var format: String?
    var waybar: Bool
    var i3bar = false

    /// One line for the whole state, rewritten on each update, rather than a line per object: for status bars.
    var isBar: Bool { !json && (waybar || i3bar || format != nil) }

    static func withoutID(_ object: JSONValue) -> JSONValue {
        guard case .object(let members) = object else { return object }
        return .object(members.filter { $0.0 != "id" })
    }

    func jsonLine(_ object: JSONValue) -> String {
        Self.withoutID(object).encoded() + "\n"
    }

    /// The reply to a request/reply subcommand (search, popular, lookup, select, here, saved, location, refresh).
    func reply(_ message: JSONValue) -> String {
        switch subcommand {
        case .search, .popular, .saved: return places(message)
        case .lookup:
            if json { return jsonLine(message) }
            let distance = message["distance_m"]?.numberValue.map { " (\(dashboard.distance(metres: $0)) away)" } ?? ""
            return "\(message["name"]?.displayText ?? "?")\(distance)\n"
        case .select, .here:
            if json { return jsonLine(message) }
            return dashboard.location(message, permission: nil).joined(separator: "\n") + "\n"
        case .location:
            if json { return jsonLine(message) }
            return dashboard.location(nil, permission: message).dropFirst()
                .map { $0.trimmingSpaces() }.joined(separator: "\n") + "\n"
        case .refresh:
            // Each dataset's answer; a daemon that does not wait acknowledges with no datasets.
            guard case .array(let datasets)? = message["datasets"] else {
                return json ? jsonLine(.object([("class", .string("OK"))])) : "Fetching the data now.\n"
            }
            if json { return jsonLine(message) }
            // Datasets with the same answer share a line: one failure (no network) is said once.
            return Self.grouped(datasets) { [$0["state"], $0["reason"], $0["place"]] }.map { names, dataset in
                let list = names.joined(separator: ", ")
                var line = "\(list.count < 8 ? list.padded(toLength: 8) : list) \(dataset["state"]?.displayText ?? "?")"
                if let reason = dataset["reason"]?.displayText { line += ": " + reason }
                if let place = dataset["place"]?.displayText { line += " (\(place))" }
                return line + "\n"
            }.joined()
        case .status, .where, .dataset:
            var snapshot: [String: JSONValue] = [:]
            if let className = message["class"]?.displayText { snapshot[className] = Self.withoutID(message) }
            return self.snapshot(snapshot)
        case .watch:
            var latest: [String: JSONValue] = [:]
            return update(message, latest: &latest) ?? ""
        case .fleet:
            // fleet reads a broker, not breezed: it renders its own lines (Fleet).
            return jsonLine(message)
        }
    }

    /// status, where, air, pollen, climate, weather: the objects of a snapshot, by class. A look at another place
    /// (`CommandContext.look`) has its `PLACE` where breezed's own location would be.
    func snapshot(_ snapshot: [String: JSONValue]) -> String {
        if let place = snapshot["PLACE"] {
            if json {
                return ([place] + Dataset.allCases.compactMap { snapshot[$0.className] }).map(jsonLine).joined()
            }
            let sections =
                [dashboard.lookedAt(place)]
                + Dataset.allCases.filter { subcommand.dataset == nil || subcommand.dataset == $0 }.map {
                    dashboard.section($0, snapshot[$0.className])
                }
            return sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
        }
        switch subcommand {
        case .where:
            guard let location = snapshot["LOCATION"] else {
                if json {
                    return jsonLine(
                        snapshot["PERMISSION"] ?? .object([("class", .string("LOCATION")), ("name", .null)]))
                }
                return dashboard.location(nil, permission: snapshot["PERMISSION"]).joined(separator: "\n") + "\n"
            }
            if json { return jsonLine(location) }
            return dashboard.location(location, permission: snapshot["PERMISSION"]).joined(separator: "\n") + "\n"
        case .dataset(let dataset):
            let className = dataset.className
            if json {
                return jsonLine(
                    snapshot[className] ?? .object([("class", .string(className)), ("state", .string("loading"))]))
            }
            return dashboard.section(dataset, snapshot[className]).joined(separator: "\n") + "\n"
        default:
            if json {
                let classes = ["PERMISSION", "LOCATION"] + Dataset.allCases.map(\.className) + ["MQTT"]
                return classes.compactMap { snapshot[$0].map(jsonLine) }.joined()
            }
            // A reason two datasets or more share (no network) is said once, after them.
            let datasets = Dataset.allCases.compactMap { snapshot[$0.className] }
            let shared = Self.grouped(datasets) { [$0["reason"] ?? $0["last_failure"]] }
                .filter { $0.names.count > 1 }
                .compactMap { names, dataset in
                    (dataset["reason"] ?? dataset["last_failure"])?.displayText.map { (names, $0) }
                }
            var dashboard = dashboard
            dashboard.reasonsSaidOnce = Set(shared.map(\.1))
            let sharedLines = shared.map { names, reason in "\(names.joined(separator: ", ")): \(reason)" }
            let sections =
                [dashboard.location(snapshot["LOCATION"], permission: snapshot["PERMISSION"])]
                + Dataset.allCases.map { dashboard.section($0, snapshot[$0.className]) }
                + (sharedLines.isEmpty ? [] : [sharedLines])
                + (snapshot["MQTT"].map { [Self.mqttLines($0)] } ?? [])
            return sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
        }
    }

    /// `objects` in groups with the same `key`, in the order each group first appears: each group's class names
    /// and its first object.
    static func grouped(_ objects: [JSONValue], by key: (JSONValue) -> [JSONValue?]) -> [(
        names: [String], first: JSONValue
    )] {
        var groups: [(key: [JSONValue?], names: [String], first: JSONValue)] = []
        for object in objects {
            let name = object["class"]?.displayText ?? "?"
            let value = key(object)
            if let index = groups.firstIndex(where: { $0.key == value }) {
                groups[index].names.append(name)
            } else {
                groups.append((value, [name], object))
            }
        }
        return groups.map { ($0.names, $0.first) }
    }

    /// The MQTT link, for `status`: its state, broker and node, and why the broker cannot be reached.
    static func mqttLines(_ mqtt: JSONValue) -> [String] {
        let state = mqtt["state"]?.displayText ?? "?"
        var line = "MQTT: \(state) · \(mqtt["broker"]?.displayText ?? "?") as \(mqtt["node"]?.displayText ?? "?")"
        if let reason = mqtt["reason"]?.displayText { line += "\n  \(reason)" }
        return [line]
    }

    /// `search`, `popular`, `saved`: with `--json` a `PLACE` line per place; for a `search` that found none, its
    /// `PLACES` object with the empty list, so that a script always reads an answer (`saved` and `popular` print
    /// nothing then, as they always have). As text a line per place (a failed online search is said on stderr:
    /// `onlineFailure`).
    func places(_ reply: JSONValue) -> String {
        if json {
            guard case .array(let places)? = reply["places"] else { return "" }
            return places.isEmpty && subcommand == .search ? jsonLine(reply) : places.map(jsonLine).joined()
        }
        guard case .array(let places)? = reply["places"], !places.isEmpty else { return "No cities.\n" }
        var text = ""
        for place in places {
            let id = place["geoname_id"]?.numberValue.map(TerminalText.whole) ?? ""
            var name = Self.listedName(place)
            // A place a search found by another name than its own: that name too ("Aleppo, Syria — Beroea").
            if let matched = place["matched"]?.displayText, !matched.isEmpty { name += " — " + matched }
            text += id.padded(toLength: 10) + name + "\n"
        }
        return text
    }

    /// A place as `search`, `popular` and `saved` list it: "Portland, Maine, United States" (the region left out
    /// when there is none or it is the city's own name).
    static func listedName(_ place: JSONValue) -> String {
        var name = place["city"]?.displayText ?? "?"
        if let admin = place["admin1"]?.displayText, !admin.isEmpty, admin != name { name += ", \(admin)" }
        return name + ", " + (place["country"]?.displayText ?? "")
    }

    /// "Online search failed (timeout): offline results only.", when the reply's `online` says it failed
    /// (`failed: <code>`); else nothing.
    static func onlineFailure(_ reply: JSONValue) -> String {
        guard let online = reply["online"]?.stringValue, online.hasPrefix("failed") else { return "" }
        let code = online.dropFirst("failed".count).drop { $0 == ":" || $0 == " " }
        let reason = code.isEmpty ? "" : " (\(TerminalText.escaped(String(code))))"
        return "Online search failed\(reason): offline results only.\n"
    }

    /// `watch`: the line for one update (nil for the objects it does not print), keeping the newest of each class.
    func update(_ message: JSONValue, latest: inout [String: JSONValue]) -> String? {
        guard let className = message["class"]?.displayText else { return nil }
        if className == "VERSION" || className == "WATCH" || className == "ERROR" { return nil }
        StatusBar.remember(Self.withoutID(message), in: &latest)
        if json { return jsonLine(message) }
        if isBar { return barLine(latest) }
        return WatchLine.text(className, message, dashboard) + "\n"
    }

    /// The status-bar line for `latest` (as Waybar or i3status-rust JSON, or the `--format` text), or for breezed
    /// being out of reach when `outage` gives the reason.
    func barLine(_ latest: [String: JSONValue], outage: String? = nil) -> String {
        let plain = Dashboard(unit: dashboard.unit, color: false, now: dashboard.now)
        let bar = StatusBar(latest, dashboard: plain, outage: outage)
        if waybar { return bar.waybar(format: format) + "\n" }
        if i3bar { return bar.i3bar(format: format) + "\n" }
        return bar.text(format: format) + "\n"
    }

    /// `watch` while breezed cannot be reached: the bar's line, a `DAEMON` object with `--json`, else a text line.
    func outageLine(_ reason: String) -> String {
        if isBar { return barLine([:], outage: reason) }
        if json {
            return JSONValue.object([
                ("class", .string("DAEMON")), ("state", .string("unavailable")), ("reason", .string(reason)),
            ]).encoded() + "\n"
        }
        let firstLine = reason.split(separator: "\n").first.map(String.init) ?? reason
        return "\(WatchLine.timestamp()) BREEZED unavailable: \(firstLine); reconnecting\n"
    }
}
