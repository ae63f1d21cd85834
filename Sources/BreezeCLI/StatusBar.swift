import BreezeCore
import BreezeProtocol

/// What a status bar shows for breezed's newest objects (`watch --waybar`, `--i3bar`, `--format`): the text, a
/// tooltip with each dataset's state, age and reason, and the classes a bar styles by. Nothing here claims more
/// than the objects say: old or missing data, a lost fix and an unreachable daemon are each named.
struct StatusBar {
    /// The newest object of each class.
    var latest: [String: JSONValue]
    /// The unit, and the time ages are counted to.
    var dashboard: Dashboard
    /// Why breezed cannot be reached; nil while it answers. Its last objects are not shown meanwhile: they may be
    /// out of date by any amount.
    var outage: String?

    init(_ latest: [String: JSONValue], dashboard: Dashboard, outage: String? = nil) {
        self.latest = latest
        self.dashboard = dashboard
        self.outage = outage
    }

    private var location: JSONValue? { latest["LOCATION"] }
    private var air: JSONValue? { latest[Dataset.air.className] }

    /// The place shown: the `LOCATION`'s name; before any `LOCATION` has come, the place of the air-quality data.
    /// A `LOCATION` without a name withdraws every place.
    private var placeName: String? {
        guard let location else { return air?["place"]?.displayText }
        return location["name"]?.displayText
    }

    /// Adds `message` to `latest`: the newest object of each class.
    static func remember(_ message: JSONValue, in latest: inout [String: JSONValue]) {
        guard let className = message["class"]?.stringValue else { return }
        latest[className] = message
    }

    /// What stands in for a live position, as `LOCATION`'s `stand_in` says; nil for a live position.
    private var standIn: StandIn? {
        location?["stand_in"]?.stringValue.flatMap(StandIn.init)
    }

    /// `no-place` when there is no place to show; `no-fix` when the place shown is not where the machine is now
    /// although it had a position this run: the place of the last fix stands in (`stand_in` `last-fix`), or the
    /// source has just been found quiet (the `LOCATION`'s permission state is no longer `authorized`). Nil while
    /// the place is current, chosen (`select`), or a city standing in before any fix.
    var locationProblem: String? {
        guard placeName != nil else { return "no-place" }
        if standIn == .lastFix { return "no-fix" }
        let source = location?["source"]?.stringValue
        guard standIn == nil, source == "gpsd" || source == "geoclue" else { return nil }
        let state = location?["state"]?.stringValue
        return state == nil || state == "authorized" ? nil : "no-fix"
    }

    /// The US AQI, while there is a place and its air-quality data (fresh or kept through a failure).
    private var aqi: Double? {
        guard locationProblem != "no-place", let value = air?["us_aqi"]?.numberValue, value.isFinite, value >= 0
        else { return nil }
        return value
    }

    /// The classes, the most telling first: `unavailable` alone while breezed cannot be reached; otherwise
    /// `no-place` alone, or `no-fix`, then the air-quality state when it is not `fresh` (`loading`, `stale`,
    /// `failed`, `offline`, `unavailable`), then the AQI category when there is an index.
    var classes: [String] {
        if outage != nil { return ["unavailable"] }
        if locationProblem == "no-place" { return ["no-place"] }
        var classes: [String] = []
        if let problem = locationProblem { classes.append(problem) }
        let state = air?["state"]?.stringValue ?? "loading"
        if state != "fresh" { classes.append(Self.word(state)) }
        if aqi != nil, let category = air?["category"]?.stringValue, !category.isEmpty {
            classes.append(Self.word(category))
        }
        return classes.isEmpty ? ["loading"] : classes
    }

    /// A CSS class from a daemon's word: letters, digits, `-` and `_` only.
    private static func word(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_")
        }
        return kept.isEmpty ? "unknown" : String(kept)
    }

    /// Waybar's `alt`, for `format-icons` keyed by state: the first class.
    var alt: String { classes[0] }

    /// Waybar's `percentage`: the US AQI as a share of its 0–500 scale (AQI 150 is 30), so that `format-icons`
    /// listed from clean to hazardous pick by it. Nil without an index.
    var percentage: Int? {
        guard outage == nil, let aqi else { return nil }
        return Int((min(aqi, 500) / 5).rounded())
    }

    /// The bar's text: the `--format` template when there is one, else the AQI's emoji and value and the city;
    /// "(no fix)" after the city when the machine's position is lost; "breezed unavailable" while it cannot be
    /// reached, whatever the template.
    func text(format: String?) -> String {
        if outage != nil { return "breezed unavailable" }
        if let format { return WatchLine.format(format, latest, unit: dashboard.unit) }
        guard locationProblem != "no-place" else { return "No place" }
        var text = location?["city"]?.displayText ?? placeName ?? "?"
        if let aqi { text = "\(air?["emoji"]?.displayText ?? "") \(TerminalText.whole(aqi)) \(text)" }
        if locationProblem == "no-fix" {
            text += " (no fix)"
        } else if let standIn, standIn != .selected {
            text += " (\(standIn.title))"
        }
        return text.trimmingSpaces()
    }

    /// One line for the place, then one for each dataset that has sent an object, with its state, age and reason,
    /// then the location permission.
    var tooltip: String {
        if let outage {
            return "breezed is unavailable: \(outage)\nReconnecting; the data shown again once it answers."
        }
        var lines: [String] = []
        if let name = placeName {
            lines.append(name + (location.flatMap(Dashboard.what).map { " · " + $0 } ?? ""))
        } else {
            lines.append("No place yet: select a city ('breezectl select CITY') or set fallback_city in breezed.conf")
        }
        if locationProblem == "no-fix" {
            var reason = latest["PERMISSION"]?["message"]?.displayText ?? "the machine's position is out of date"
            if let time = location?["time"]?.stringValue.flatMap(Dashboard.parse) {
                reason += "; last fix \(Dashboard.age(max(0, dashboard.now - time))) ago"
            }
            lines.append("No fix: \(reason)")
        }
        if let air {
            if let aqi {
                let label = air["label"]?.displayText ?? ""
                lines.append("AQI \(TerminalText.whole(aqi)) \(label) \(dashboard.stateText(air))")
                if case .array(let tips)? = air["tips"], let tip = tips.first?.displayText { lines.append(tip) }
            } else {
                lines.append("Air quality \(dashboard.stateText(air))")
            }
        }
        // The air's lines are the bar's own, above; each other dataset's is its view's.
        for view in DatasetViews.all where view.dataset != .air {
            if let message = latest[view.dataset.className] { lines.append(view.tooltipLine(message, dashboard)) }
        }
        if let permission = latest["PERMISSION"], let state = permission["state"]?.displayText {
            lines.append("Location: \(state)")
        }
        return lines.map { $0.replacingText("  ", with: " ") }.joined(separator: "\n")
    }

    /// Waybar's custom-module JSON: `text`, `tooltip`, `class` (a list), `alt`, and `percentage` when there is an
    /// index.
    func waybar(format: String?) -> String {
        var members: [(String, JSONValue)] = [
            ("text", .string(text(format: format))), ("tooltip", .string(tooltip)),
            ("class", .array(classes.map(JSONValue.string))), ("alt", .string(alt)),
        ]
        if let percentage { members.append(("percentage", .number(Double(percentage)))) }
        return JSONValue.object(members).encoded()
    }

    /// i3status-rust's custom-block JSON (`json = true`): `text` and `state`.
    func i3bar(format: String?) -> String {
        JSONValue.object([("text", .string(text(format: format))), ("state", .string(i3barState))]).encoded()
    }

    /// i3status-rust's block state, the more severe of the data's and the AQI's: `Warning` while breezed cannot be
    /// reached, for no place, a lost fix, and data that is not fresh; by the AQI category `Good` (good), `Info`
    /// (moderate), `Warning` (unhealthy for sensitive groups), `Critical` (unhealthy and worse); `Idle` while
    /// loading.
    var i3barState: String {
        let order = ["Idle", "Good", "Info", "Warning", "Critical"]
        var states: [String] = []
        for name in classes {
            switch name {
            case "loading": states.append("Idle")
            case "good": states.append("Good")
            case "moderate": states.append("Info")
            case "unhealthy_for_sensitive_groups": states.append("Warning")
            case "unhealthy", "very_unhealthy", "hazardous": states.append("Critical")
            default: states.append("Warning")
            }
        }
        return states.max { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! } ?? "Idle"
    }
}
