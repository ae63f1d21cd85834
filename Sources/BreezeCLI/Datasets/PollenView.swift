import BreezeCore
import BreezeProtocol

/// `breezectl pollen`: the pollen levels.
enum PollenView: DatasetView {
    static var dataset: Dataset { .pollen }

    static let help = CommandHelp(
        abstract: "Show pollen levels.",
        usage: "pollen [<place>]",
        arity: CommandHelp.placeArity,
        arguments: [CommandHelp.placeArgument],
        discussion: "Exits 0 with data (fresh or stale), 75 while it is being fetched or the fetch failed, 69 when "
            + "there is none for the place.",
        examples: [
            ("breezectl pollen", "each pollen type and plant, with advice at the highest level"),
            ("breezectl pollen vienna", "the same for Vienna, breezed's own place unchanged"),
        ])

    static func section(_ message: JSONValue?, _ dashboard: Dashboard) -> [String] {
        guard let message else { return ["Pollen: no data yet"] }
        var lines = ["Pollen " + dashboard.stateText(message)]
        if let provider = message["provider"]?.displayText { lines[0] += dashboard.dim(" · \(provider)") }
        if case .array(let entries)? = message["entries"] {
            for entry in entries {
                let name = (entry["name"]?.displayText ?? "").padded(toLength: 10)
                var text = "  \(name)\(entry["level_name"]?.displayText ?? "—")"
                if let grains = entry["grains"]?.numberValue {
                    text += dashboard.dim(printfFormat(" (%.1f grains/m³)", grains))
                }
                lines.append(text)
            }
        }
        return lines + dashboard.tips(message)
    }

    /// `{pollen}`: the highest level, 0 (none) to 5 (very high); `{pollen_label}`: its name.
    static var formatTokens: [String] { ["pollen", "pollen_label"] }

    static func formatFields(_ message: JSONValue, unit: TemperatureUnit) -> [String: String] {
        let level = message["highest"]?.numberValue.flatMap { Int(exactly: $0) }.flatMap(PollenLevel.init)
        return ["pollen": WatchLine.text(message["highest"]) ?? "", "pollen_label": level?.title ?? ""]
    }
}
