import BreezeCore
import BreezeProtocol
import FoundationEssentials

/// Text and numbers from the daemon made safe for a terminal: control characters shown visibly, numbers printed
/// without a conversion that could trap.
enum TerminalText {
    /// `text` with C0 and C1 controls and DEL shown as `\x1b`, `\r`, `\n`, `\t`, so that a name or reason from
    /// outside cannot move the cursor, clear the screen, set the title or ring the bell.
    static func escaped(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                output += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// A number as a whole number when it is one that fits an `Int`, else as `%g` ("1e+300").
    static func whole(_ value: Double) -> String {
        if let integer = Int(exactly: value.rounded(.towardZero)) { return String(integer) }
        return printfFormat("%g", value)
    }

    /// The largest temperature, in °C, printed as one: beyond it the daemon sent nonsense.
    static let maximumTemperature = 1_000_000.0

    /// "21.3°C", or "?" for a value no thermometer shows.
    static func temperature(_ celsius: Double, _ unit: TemperatureUnit) -> String {
        guard celsius.isFinite, abs(celsius) <= maximumTemperature else { return "?" }
        return Temperature(celsius: celsius).formatted(unit)
    }
}

extension JSONValue {
    /// The string value, escaped for the terminal.
    var displayText: String? { stringValue.map(TerminalText.escaped) }
}
