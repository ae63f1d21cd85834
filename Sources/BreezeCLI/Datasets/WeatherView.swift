import BreezeCore
import BreezeProtocol

/// `breezectl weather`: now and seven days.
enum WeatherView: DatasetView {
    static var dataset: Dataset { .weather }

    static let help = CommandHelp(
        abstract: "Show the weather now and the forecast for 7 days.",
        usage: "weather [<place>]",
        arity: CommandHelp.placeArity,
        arguments: [CommandHelp.placeArgument],
        examples: [
            ("breezectl weather", "the temperature and condition now, and 7 days"),
            ("breezectl --units c weather", "in Celsius"),
            ("breezectl weather paris", "in Paris, breezed's own place unchanged"),
        ])

    static func section(_ message: JSONValue?, _ dashboard: Dashboard) -> [String] {
        guard let message else { return ["Weather: no data yet"] }
        var lines = ["Weather " + dashboard.stateText(message)]
        guard let celsius = message["temperature_c"]?.numberValue else { return lines }
        var now = "  \(message["emoji"]?.displayText ?? "") \(TerminalText.temperature(celsius, dashboard.unit))"
        now += " \(message["condition"]?.displayText ?? "")"
        if let apparent = message["apparent_c"]?.numberValue {
            now += dashboard.dim(" · feels like \(TerminalText.temperature(apparent, dashboard.unit))")
        }
        lines.append(now)
        var detail: [String] = []
        if let humidity = message["humidity"]?.numberValue {
            detail.append("humidity \(TerminalText.whole(humidity))%")
        }
        if let wind = message["wind_kmh"]?.numberValue {
            detail.append("wind " + dashboard.speed(kilometresPerHour: wind))
        }
        if !detail.isEmpty { lines.append("  " + detail.joined(separator: " · ")) }
        guard case .array(let days)? = message["daily"], !days.isEmpty else { return lines }
        for day in days {
            guard let date = day["date"]?.displayText else { continue }
            let high = day["max_c"]?.numberValue.map { TerminalText.temperature($0, dashboard.unit) } ?? "?"
            let low = day["min_c"]?.numberValue.map { TerminalText.temperature($0, dashboard.unit) } ?? "?"
            var line = "  \(date)  \(day["emoji"]?.displayText ?? " ")  \(low) … \(high)"
            if let chance = day["precipitation_probability"]?.numberValue {
                line += dashboard.dim("  \(TerminalText.whole(chance))% rain")
            }
            if let condition = day["condition"]?.displayText { line += "  " + condition }
            lines.append(line)
        }
        return lines
    }

    static var formatTokens: [String] { ["temp", "condition", "icon", "icon_name", "high", "low"] }

    static func formatFields(_ message: JSONValue, unit: TemperatureUnit) -> [String: String] {
        var fields = [
            "temp": message["temperature_c"]?.numberValue.map { TerminalText.temperature($0, unit) } ?? "",
            "condition": WatchLine.text(message["condition"]) ?? "",
            "icon": WatchLine.text(message["emoji"]) ?? "",
            "icon_name": WatchLine.text(message["icon"]) ?? "",
        ]
        if case .array(let days)? = message["daily"], let today = days.first {
            fields["high"] = today["max_c"]?.numberValue.map { TerminalText.temperature($0, unit) } ?? ""
            fields["low"] = today["min_c"]?.numberValue.map { TerminalText.temperature($0, unit) } ?? ""
        }
        return fields
    }

    static func tooltipLine(_ message: JSONValue, _ dashboard: Dashboard) -> String {
        var line = "Weather"
        if let celsius = message["temperature_c"]?.numberValue {
            line += " \(message["emoji"]?.displayText ?? "") \(TerminalText.temperature(celsius, dashboard.unit))"
            line += " \(message["condition"]?.displayText ?? "")"
        }
        return line + " " + dashboard.stateText(message)
    }
}
