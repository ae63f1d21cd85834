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
        return lines + forecast(days, dashboard)
    }

    /// A line a day, in columns: "Mon 7 Dec  🌫️   2.8°C …  12.3°C   0% rain  Fog".
    static func forecast(_ days: [JSONValue], _ dashboard: Dashboard) -> [String] {
        func temperature(_ value: JSONValue?) -> String {
            value?.numberValue.map { TerminalText.temperature($0, dashboard.unit) } ?? "?"
        }
        typealias Row = (date: String, emoji: String, low: String, high: String, rain: String?, condition: String?)
        let rows = days.compactMap { day -> Row? in
            guard let date = day["date"]?.displayText else { return nil }
            // A date breezed sent that is not one is shown as it came.
            let name = CivilDate(iso8601: date[...])?.shortName ?? date
            let rain = day["precipitation_probability"]?.numberValue.map { "\(TerminalText.whole($0))% rain" }
            let emoji = day["emoji"]?.displayText ?? ""
            let condition = day["condition"]?.displayText
            return (name, emoji, temperature(day["min_c"]), temperature(day["max_c"]), rain, condition)
        }
        let dateWidth = rows.map(\.date.count).max() ?? 0
        let lowWidth = rows.map(\.low.count).max() ?? 0
        let highWidth = rows.map(\.high.count).max() ?? 0
        let rainWidth = rows.compactMap(\.rain?.count).max() ?? 0
        return rows.map { row in
            // An emoji takes two columns; one missing is two spaces, so the columns after it stay in line.
            let emoji = row.emoji.isEmpty ? "  " : row.emoji
            var line = "  \(row.date.padded(toLength: dateWidth))  \(emoji)  "
            line += row.low.leftPadded(toLength: lowWidth) + " … " + row.high.leftPadded(toLength: highWidth)
            if rainWidth > 0 { line += "  " + dashboard.dim((row.rain ?? "").leftPadded(toLength: rainWidth)) }
            if let condition = row.condition { line += "  " + condition }
            return line
        }
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
