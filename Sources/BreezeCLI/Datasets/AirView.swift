import BreezeCore
import BreezeProtocol

/// `breezectl air`: the air quality, and the AQI on its `watch` line.
enum AirView: DatasetView {
    static var dataset: Dataset { .air }

    /// In messages: "no air-quality data yet".
    static var noun: String { "air-quality" }

    static let help = CommandHelp(
        abstract: "Show the air quality: US AQI and six pollutants.",
        usage: "air [<place>]",
        arity: CommandHelp.placeArity,
        arguments: [CommandHelp.placeArgument],
        discussion: "Exits 0 with data (fresh or stale), 75 while it is being fetched or the fetch failed, 69 when "
            + "there is none for the place.",
        examples: [
            ("breezectl air", "the index, its label, advice and the pollutants"),
            ("breezectl air zurich", "the same for Zürich, breezed's own place unchanged"),
        ])

    static func section(_ message: JSONValue?, _ dashboard: Dashboard) -> [String] {
        guard let message else { return ["Air quality: no data yet"] }
        var lines = ["Air quality " + dashboard.stateText(message)]
        guard let aqi = message["us_aqi"]?.numberValue else { return lines }
        let label = message["label"]?.displayText ?? ""
        let emoji = message["emoji"]?.displayText ?? ""
        let colour = message["color"]?.displayText
        let summary = message["summary"]?.displayText ?? ""
        lines.append(
            "  " + dashboard.paint("AQI \(TerminalText.whole(aqi)) \(emoji) \(label)", hex: colour)
                + dashboard.dim(" — \(summary)"))
        lines += dashboard.tips(message)
        if case .array(let pollutants)? = message["pollutants"] {
            for pollutant in pollutants {
                let symbol = (pollutant["symbol"]?.displayText ?? "").padded(toLength: 6)
                let value =
                    pollutant["value"]?.numberValue.map { printfFormat("%7.1f µg/m³", $0) }
                    ?? "      — µg/m³"
                let status = pollutant["status"]?.displayText ?? "no value"
                lines.append("  \(symbol)\(value)  \(dashboard.statusWord(status))")
            }
        }
        return lines
    }

    static func watchText(_ message: JSONValue, _ dashboard: Dashboard) -> String? {
        if let aqi = message["us_aqi"]?.numberValue {
            let label = message["label"]?.displayText ?? ""
            return "AIR AQI \(TerminalText.whole(aqi)) \(label) \(dashboard.stateText(message))"
        }
        return "AIR \(dashboard.stateText(message))"
    }

    static var formatTokens: [String] {
        ["aqi", "aqi_label", "emoji", "category", "air_state"] + Pollutant.allCases.map(\.rawValue)
    }

    static func formatFields(_ message: JSONValue, unit: TemperatureUnit) -> [String: String] {
        var fields = [
            "aqi": WatchLine.text(message["us_aqi"]) ?? "",
            "aqi_label": WatchLine.text(message["label"]) ?? "",
            "emoji": WatchLine.text(message["emoji"]) ?? "",
            "category": WatchLine.text(message["category"]) ?? "",
            "air_state": WatchLine.text(message["state"]) ?? "",
        ]
        if case .array(let pollutants)? = message["pollutants"] {
            for pollutant in pollutants {
                if let code = WatchLine.text(pollutant["code"]) {
                    fields[code] = WatchLine.text(pollutant["value"]) ?? ""
                }
            }
        }
        return fields
    }
}
