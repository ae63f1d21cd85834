import BreezeCore
import BreezeProtocol

/// `breezectl climate`: today's maximum across the decades.
enum ClimateView: DatasetView {
    static var dataset: Dataset { .climate }

    static let help = CommandHelp(
        abstract: "Show today's maximum temperature across the decades.",
        usage: "climate [<place>]",
        arity: CommandHelp.placeArity,
        arguments: [CommandHelp.placeArgument],
        examples: [
            ("breezectl climate", "in the locale's unit"), ("breezectl --units f climate", "in Fahrenheit"),
            ("breezectl climate new york", "for New York, breezed's own place unchanged"),
        ])

    static func section(_ message: JSONValue?, _ dashboard: Dashboard) -> [String] {
        guard let message else { return ["Climate: no data yet"] }
        var lines = ["Climate " + dashboard.stateText(message)]
        guard case .array(let points)? = message["points"], !points.isEmpty else { return lines }
        let values = points.compactMap { $0["max_c"]?.numberValue }
        let low = values.min() ?? 0
        let high = values.max() ?? 0
        let bars = Array("▁▂▃▄▅▆▇█")
        if let month = message["month"]?.numberValue.flatMap({ Int(exactly: $0) }), (1...12).contains(month),
            let day = message["day"]?.numberValue.flatMap({ Int(exactly: $0) }), (1...31).contains(day)
        {
            lines.append("  Maximum temperature on \(Dashboard.monthNames[month - 1]) \(day):")
        }
        for point in points {
            guard let year = point["year"]?.numberValue, let celsius = point["max_c"]?.numberValue else { continue }
            let share = (celsius - low) / (high - low) * 7
            let level = high > low && share.isFinite ? min(7, max(0, Int(exactly: share.rounded()) ?? 3)) : 3
            let temperature = TerminalText.temperature(celsius, dashboard.unit)
            let bar = String(repeating: bars[level], count: 1 + level)
            lines.append("  \(TerminalText.whole(year))  \(bar)  \(temperature)")
        }
        if let change = message["change_c"]?.numberValue, let first = points.first?["year"]?.numberValue {
            let text =
                change.isFinite && abs(change) <= TerminalText.maximumTemperature
                ? Temperature(celsius: change).formattedChange(since: Temperature(celsius: 0), in: dashboard.unit) : "?"
            lines.append("  Change since \(TerminalText.whole(first)): \(text)")
        }
        return lines
    }
}
