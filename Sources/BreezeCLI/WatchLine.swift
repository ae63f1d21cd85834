import BreezeCore
import BreezeProtocol
import Glibc

/// One line per update for `watch`: plain text, a `--format` template, or Waybar's JSON.
enum WatchLine {
    static func text(_ className: String, _ message: JSONValue, _ dashboard: Dashboard) -> String {
        let time = timestamp()
        switch className {
        case "LOCATION":
            let name = (message["distinct_name"] ?? message["name"])?.displayText ?? "no place"
            return "\(time) LOCATION \(name) (\(Dashboard.what(message) ?? "?"))"
        case "PERMISSION":
            return
                "\(time) PERMISSION \(message["state"]?.displayText ?? "?"): \(message["message"]?.displayText ?? "")"
        default:
            let view = Dataset(className: className).flatMap(DatasetViews.view)
            return "\(time) " + (view?.watchText(message, dashboard) ?? "\(className) \(dashboard.stateText(message))")
        }
    }

    static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        return printfFormat("%02d:%02d:%02d", local.tm_hour, local.tm_min, local.tm_sec)
    }

    /// The values `--format` and `--waybar` draw on, from the newest object of each class: the place and the
    /// permission here, each dataset's from its view.
    static func fields(_ latest: [String: JSONValue], unit: TemperatureUnit) -> [String: String] {
        var fields: [String: String] = [:]
        if let location = latest["LOCATION"] {
            for key in ["name", "city", "country", "country_code", "admin1", "source", "stand_in"] {
                fields[key] = text(location[key]) ?? ""
            }
            // At most four decimals, about 11 m: finer than any fix breezed names a place from, and short in a bar
            // (46.510596667 is 46.5106; 46.5 stays 46.5).
            for key in ["latitude", "longitude"] {
                fields[key] = location[key]?.numberValue.map(Self.coordinate) ?? ""
            }
        }
        fields["state"] = text(latest["PERMISSION"]?["state"]) ?? ""
        for view in DatasetViews.all {
            guard let message = latest[view.dataset.className] else { continue }
            fields.merge(view.formatFields(message, unit: unit)) { _, new in new }
        }
        return fields
    }

    /// A value as a token shows it: a string escaped for the terminal, a whole number without decimals; nil for
    /// anything else.
    static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: TerminalText.escaped(text)
        case .number(let number)?: Int(exactly: number).map(String.init) ?? String(number)
        case .bool(let flag)?: String(flag)
        default: nil
        }
    }

    /// A latitude or longitude rounded to four decimals, written without trailing zeros.
    static func coordinate(_ degrees: Double) -> String {
        guard degrees.isFinite, abs(degrees) <= 360 else { return "?" }
        let rounded = (degrees * 10_000).rounded() / 10_000
        return Int(exactly: rounded).map(String.init) ?? String(rounded)
    }

    /// Every `{token}` a `--format` may use, in the order the help lists them. One rule for a value that is
    /// missing (its object has not arrived, or has no such value): the token is replaced by nothing, or by the
    /// default it names after a bar (`{aqi|?}` is "?" without an index).
    static let knownTokens =
        ["name", "city", "admin1", "country", "country_code", "source", "stand_in", "state", "latitude", "longitude"]
        + DatasetViews.all.flatMap { $0.formatTokens }

    /// The names between braces in `template`, in order, without their defaults; an unclosed brace is text, not a
    /// token.
    static func tokens(in template: String) -> [String] {
        var names: [String] = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(token(rest[rest.index(after: open)..<close]).name)
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// A token's name and the default it names for a missing value ("aqi|?": "aqi" and "?"; "aqi": "aqi" and
    /// nothing).
    static func token(_ text: Substring) -> (name: String, fallback: Substring) {
        guard let bar = text.firstIndex(of: "|") else { return (String(text), "") }
        return (String(text[..<bar]), text[text.index(after: bar)...])
    }

    /// Replaces each `{token}` with its value; the tokens were checked against `knownTokens` when the command line
    /// was parsed.
    static func format(_ template: String, _ latest: [String: JSONValue], unit: TemperatureUnit) -> String {
        let fields = fields(latest, unit: unit)
        var output = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            output += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                // An unclosed brace is text: what came before it is in `output` already.
                rest = rest[open...]
                break
            }
            let (name, fallback) = token(rest[rest.index(after: open)..<close])
            if let value = fields[name], !value.isEmpty { output += value } else { output += fallback }
            rest = rest[rest.index(after: close)...]
        }
        return output + rest
    }
}
