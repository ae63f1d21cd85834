import BreezeCore
import BreezeProtocol

/// Turns the daemon's objects into text for people: the status dashboard and the per-dataset views.
struct Dashboard {
    var unit: TemperatureUnit
    var color: Bool
    var now: Double = SystemServiceClock().wallTime
    /// Reasons `status` says once, after the datasets that share them: left out of each one's state.
    var reasonsSaidOnce: Set<String> = []

    /// "2.3 km", or "1.4 mi" where temperatures are in °F (the en_US locale, or `--units f`): one unit choice.
    func distance(metres: Double) -> String {
        guard metres.isFinite, abs(metres) < 1e12 else { return "?" }
        return unit == .fahrenheit ? printfFormat("%.1f mi", metres / 1609.344) : printfFormat("%.1f km", metres / 1000)
    }

    /// "±17 m", or "±56 ft" where temperatures are in °F: a short length, as an accuracy.
    func accuracy(metres: Double) -> String {
        guard metres.isFinite, abs(metres) < 1e12 else { return "±?" }
        return unit == .fahrenheit ? printfFormat("±%.0f ft", metres / 0.3048) : printfFormat("±%.0f m", metres)
    }

    /// "12 km/h", or "7 mph" where temperatures are in °F.
    func speed(kilometresPerHour: Double) -> String {
        guard kilometresPerHour.isFinite, abs(kilometresPerHour) < 1e9 else { return "?" }
        return unit == .fahrenheit
            ? printfFormat("%.0f mph", kilometresPerHour / 1.609344) : printfFormat("%.0f km/h", kilometresPerHour)
    }

    /// The lines that show `dataset`, from its newest object: its view's section (`DatasetViews`).
    func section(_ dataset: Dataset, _ message: JSONValue?) -> [String] {
        guard let view = DatasetViews.view(dataset) else {
            return [dataset.className + ": " + (message.map(stateText) ?? "no data yet")]
        }
        return view.section(message, self)
    }

    /// The object's `tips`, one bulleted line each (the advice for its AQI label or pollen level).
    func tips(_ message: JSONValue) -> [String] {
        guard case .array(let tips)? = message["tips"] else { return [] }
        return tips.compactMap(\.displayText).map { "  • " + $0 }
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December",
    ]

    /// "(fresh, 4 min old)", "(stale, 2 h old: transport: …)", "(unavailable: …)". Data sent as fresh that is older
    /// now than it stays fresh (`fresh_for_s`) is shown stale: the wall clock moved on since (a clock set forward, a
    /// resume from suspend), and breezed fetches it again within half a minute.
    func stateText(_ message: JSONValue) -> String {
        var state = message["state"]?.displayText ?? "?"
        if state == "fresh", let age = ageSeconds(of: message), let freshFor = message["fresh_for_s"]?.numberValue,
            age > freshFor + 60
        {
            state = "stale"
        }
        var parts = [state]
        if let age = age(of: message) { parts[0] += ", \(age) old" }
        if let reason = message["reason"]?.displayText, !reasonsSaidOnce.contains(reason) { parts.append(reason) }
        if state == "fresh", let failure = message["last_failure"]?.displayText {
            parts[0] += "; last refresh failed"
            if !reasonsSaidOnce.contains(failure) { parts.append(failure) }
        }
        if let retry = message["retry_at"]?.displayText.flatMap(Self.parse), retry > now {
            parts[parts.count - 1] += "; next try in \(Self.age((retry - now).rounded(.up)))"
        }
        let text = "(" + parts.joined(separator: ": ") + ")"
        // A problem stands out: a failure in red, data kept through one (or none to be had) in yellow; the rest is
        // quiet.
        if state == "failed" { return problem(text, severe: true) }
        if message["reason"] != nil || message["last_failure"] != nil || state == "stale" {
            return problem(text, severe: false)
        }
        return dim(text)
    }

    /// The age from `fetched`, counted now rather than when the daemon sent it.
    func age(of message: JSONValue) -> String? {
        ageSeconds(of: message).map(Self.age)
    }

    /// "12 s", "4 min", "3 h", "2 days".
    static func age(_ seconds: Double) -> String {
        if seconds < 90 { return "\(Int(seconds)) s" }
        if seconds < 5_400 { return "\(Int((seconds / 60).rounded())) min" }
        if seconds < 172_800 { return "\(Int((seconds / 3_600).rounded())) h" }
        return "\(Int((seconds / 86_400).rounded())) days"
    }

    /// The seconds since `fetched`, now; zero for a time ahead of this clock (never a negative age).
    func ageSeconds(of message: JSONValue) -> Double? {
        guard let fetched = message["fetched"]?.displayText, let time = Self.parse(fetched) else { return nil }
        return max(0, now - time)
    }

    static func parse(_ timestamp: String) -> Double? {
        Timestamp.seconds(iso8601: timestamp)
    }

    // MARK: Colour (only on a terminal, never with NO_COLOR)

    func bold(_ text: String) -> String { color ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { color ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    /// A problem, highlighted: red when `severe`, else yellow.
    func problem(_ text: String, severe: Bool) -> String {
        color ? "\u{1B}[\(severe ? 31 : 33)m\(text)\u{1B}[0m" : text
    }

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
