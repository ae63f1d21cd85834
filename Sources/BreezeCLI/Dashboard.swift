import BreezeCore
import BreezeProtocol

/// Turns the daemon's objects into text for people: the status dashboard and the per-dataset views.
struct Dashboard {
    var unit: TemperatureUnit
    var color: Bool
    var now: Double = SystemServiceClock().wallTime

    func location(_ message: JSONValue?, permission: JSONValue?) -> [String] {
        var lines: [String] = []
        if let message, let name = message["name"]?.displayText {
            let source = message["source"]?.displayText ?? "?"
            lines.append(bold(name) + dim(" · \(source)"))
            if let latitude = message["latitude"]?.numberValue, let longitude = message["longitude"]?.numberValue {
                var detail = printfFormat("%.5f, %.5f", latitude, longitude)
                if let accuracy = message["accuracy"]?.numberValue { detail += printfFormat(" ±%.0f m", accuracy) }
                if let distance = message["distance_m"]?.numberValue {
                    detail += " · \(self.distance(metres: distance)) from the centre"
                }
                lines.append("  " + detail)
            }
        } else {
            lines.append("No place yet")
        }
        if let permission {
            let state = permission["state"]?.displayText ?? "?"
            lines.append("  Location: \(state) — \(permission["message"]?.displayText ?? "")")
            if let hint = permission["hint"]?.displayText { lines.append("  Hint: \(hint)") }
        }
        return lines
    }

    /// "2.3 km", or "1.4 mi" where temperatures are in °F (the en_US locale, or `--units f`): one unit choice.
    func distance(metres: Double) -> String {
        guard metres.isFinite, abs(metres) < 1e12 else { return "?" }
        return unit == .fahrenheit ? printfFormat("%.1f mi", metres / 1609.344) : printfFormat("%.1f km", metres / 1000)
    }

    /// The lines that show `dataset`, from its newest object: each dataset's rendering is registered here.
    func section(_ dataset: Dataset, _ message: JSONValue?) -> [String] {
        switch dataset {
        case .air: air(message)
        case .pollen: pollen(message)
        case .climate: climate(message)
        case .weather: weather(message)
        }
    }

    func weather(_ message: JSONValue?) -> [String] {
        guard let message else { return ["Weather: no data yet"] }
        var lines = ["Weather " + stateText(message)]
        guard let celsius = message["temperature_c"]?.numberValue else { return lines }
        var now = "  \(message["emoji"]?.displayText ?? "") \(TerminalText.temperature(celsius, unit))"
        now += " \(message["condition"]?.displayText ?? "")"
        if let apparent = message["apparent_c"]?.numberValue {
            now += dim(" · feels like \(TerminalText.temperature(apparent, unit))")
        }
        lines.append(now)
        var detail: [String] = []
        if let humidity = message["humidity"]?.numberValue { detail.append("humidity \(TerminalText.whole(humidity))%") }
        if let wind = message["wind_kmh"]?.numberValue { detail.append("wind \(TerminalText.whole(wind)) km/h") }
        if !detail.isEmpty { lines.append("  " + detail.joined(separator: " · ")) }
        guard case .array(let days)? = message["daily"], !days.isEmpty else { return lines }
        for day in days {
            guard let date = day["date"]?.displayText else { continue }
            let high = day["max_c"]?.numberValue.map { TerminalText.temperature($0, unit) } ?? "?"
            let low = day["min_c"]?.numberValue.map { TerminalText.temperature($0, unit) } ?? "?"
            var line = "  \(date)  \(day["emoji"]?.displayText ?? " ")  \(low) … \(high)"
            if let chance = day["precipitation_probability"]?.numberValue {
                line += dim("  \(TerminalText.whole(chance))% rain")
            }
            if let condition = day["condition"]?.displayText { line += "  " + condition }
            lines.append(line)
        }
        return lines
    }

    func air(_ message: JSONValue?) -> [String] {
        guard let message else { return ["Air quality: no data yet"] }
        var lines = ["Air quality " + stateText(message)]
        guard let aqi = message["us_aqi"]?.numberValue else { return lines }
        let label = message["label"]?.displayText ?? ""
        let emoji = message["emoji"]?.displayText ?? ""
        let colour = message["color"]?.displayText
        lines.append("  " + paint("AQI \(TerminalText.whole(aqi)) \(emoji) \(label)", hex: colour) + dim(" — \(message["summary"]?.displayText ?? "")"))
        lines += tips(message)
        if case .array(let pollutants)? = message["pollutants"] {
            for pollutant in pollutants {
                let symbol = (pollutant["symbol"]?.displayText ?? "").padded(toLength: 6)
                let value = pollutant["value"]?.numberValue.map { printfFormat("%7.1f µg/m³", $0) } ?? "      — µg/m³"
                let status = pollutant["status"]?.displayText ?? "no value"
                lines.append("  \(symbol)\(value)  \(statusWord(status))")
            }
        }
        return lines
    }

    func pollen(_ message: JSONValue?) -> [String] {
        guard let message else { return ["Pollen: no data yet"] }
        var lines = ["Pollen " + stateText(message)]
        if let provider = message["provider"]?.displayText { lines[0] += dim(" · \(provider)") }
        if case .array(let entries)? = message["entries"] {
            for entry in entries {
                let name = (entry["name"]?.displayText ?? "").padded(toLength: 10)
                var text = "  \(name)\(entry["level_name"]?.displayText ?? "—")"
                if let grains = entry["grains"]?.numberValue { text += dim(printfFormat(" (%.1f grains/m³)", grains)) }
                lines.append(text)
            }
        }
        return lines + tips(message)
    }

    func climate(_ message: JSONValue?) -> [String] {
        guard let message else { return ["Climate: no data yet"] }
        var lines = ["Climate " + stateText(message)]
        guard case .array(let points)? = message["points"], !points.isEmpty else { return lines }
        let values = points.compactMap { $0["max_c"]?.numberValue }
        let low = values.min() ?? 0
        let high = values.max() ?? 0
        let bars = Array("▁▂▃▄▅▆▇█")
        if let month = message["month"]?.numberValue.flatMap({ Int(exactly: $0) }), (1...12).contains(month),
            let day = message["day"]?.numberValue.flatMap({ Int(exactly: $0) }), (1...31).contains(day)
        {
            lines.append("  Maximum temperature on \(Self.monthNames[month - 1]) \(day):")
        }
        for point in points {
            guard let year = point["year"]?.numberValue, let celsius = point["max_c"]?.numberValue else { continue }
            let share = (celsius - low) / (high - low) * 7
            let level = high > low && share.isFinite ? min(7, max(0, Int(exactly: share.rounded()) ?? 3)) : 3
            let temperature = TerminalText.temperature(celsius, unit)
            lines.append("  \(TerminalText.whole(year))  \(String(repeating: bars[level], count: 1 + level))  \(temperature)")
        }
        if let change = message["change_c"]?.numberValue, let first = points.first?["year"]?.numberValue {
            let text = change.isFinite && abs(change) <= TerminalText.maximumTemperature
                ? Temperature(celsius: change).formattedChange(since: Temperature(celsius: 0), in: unit) : "?"
            lines.append("  Change since \(TerminalText.whole(first)): \(text)")
        }
        return lines
    }

    /// The object's `tips`, one bulleted line each (the advice for its AQI label or pollen level).
    func tips(_ message: JSONValue) -> [String] {
        guard case .array(let tips)? = message["tips"] else { return [] }
        return tips.compactMap(\.displayText).map { "  • " + $0 }
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    /// "(fresh, 4 min old)", "(stale, 2 h old: transport: …)", "(unavailable: …)".
    func stateText(_ message: JSONValue) -> String {
        let state = message["state"]?.displayText ?? "?"
        var parts = [state]
        if let age = age(of: message) { parts[0] += ", \(age) old" }
        if let reason = message["reason"]?.displayText { parts.append(reason) }
        return dim("(" + parts.joined(separator: ": ") + ")")
    }

    /// The age from `fetched`, counted now rather than when the daemon sent it.
    func age(of message: JSONValue) -> String? {
        guard let fetched = message["fetched"]?.displayText, let time = Self.parse(fetched) else { return nil }
        let seconds = max(0, now - time)
        if seconds < 90 { return "\(Int(seconds)) s" }
        if seconds < 5_400 { return "\(Int((seconds / 60).rounded())) min" }
        if seconds < 172_800 { return "\(Int((seconds / 3_600).rounded())) h" }
        return "\(Int((seconds / 86_400).rounded())) days"
    }

    static func parse(_ timestamp: String) -> Double? {
        Timestamp.seconds(iso8601: timestamp)
    }

    // MARK: Colour (only on a terminal, never with NO_COLOR)

    func bold(_ text: String) -> String { color ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { color ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    func paint(_ text: String, hex: String?) -> String {
        guard color, let hex, hex.count == 7, let value = UInt32(hex.dropFirst(), radix: 16) else { return text }
        return "\u{1B}[1;38;2;\(value >> 16);\((value >> 8) & 0xFF);\(value & 0xFF)m\(text)\u{1B}[0m"
    }

    func statusWord(_ status: String) -> String {
        guard color else { return status }
        switch status {
        case "good": return "\u{1B}[32m\(status)\u{1B}[0m"
        case "moderate": return "\u{1B}[33m\(status)\u{1B}[0m"
        case "unhealthy": return "\u{1B}[31m\(status)\u{1B}[0m"
        default: return status
        }
    }
}
