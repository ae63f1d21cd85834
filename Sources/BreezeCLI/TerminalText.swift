import BreezeCore
import BreezeProtocol
import BreezeSystem

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

    /// True when the locale breezectl runs in is UTF-8: the first of `LC_ALL`, `LC_CTYPE` and `LANG` that is set
    /// names UTF-8 ("en_US.UTF-8", "C.utf8"). With none set (a service, a test harness) it counts as UTF-8, the
    /// default of every current system; `LANG=C`, `POSIX` or a Latin-1 locale does not.
    static func localeIsUTF8(_ environment: ProcessEnvironment.Variables) -> Bool {
        let settings = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }
        guard let setting = settings.first(where: { !$0.isEmpty }) else { return true }
        let lowered = setting.lowercased()
        return lowered.containsText("utf-8") || lowered.containsText("utf8")
    }

    /// ASCII for the symbols breezectl itself prints, for a terminal that is not UTF-8.
    static let asciiSymbols: [Unicode.Scalar: String] = [
        "·": "-", "±": "+/-", "—": "--", "–": "-", "…": "...", "•": "*", "°": "", "µ": "u", "³": "3", "²": "2",
        "→": "->", "←": "<-", "‘": "'", "’": "'", "“": "\"", "”": "\"", "×": "x", "›": ">", "‹": "<",
        "▁": "#", "▂": "#", "▃": "#", "▄": "#", "▅": "#", "▆": "#", "▇": "#", "█": "#",
        // The pollutants' subscripts: NO₂, SO₂, O₃.
        "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9",
    ]

    /// `text` for a terminal that is not UTF-8: breezectl's own symbols in ASCII ("±5 m" → "+/-5 m", "21.3°C" →
    /// "21.3C", NO₂ → NO2, a climate bar's blocks → "#", its length still the level) and emoji left out, with the
    /// space that set one apart ("  🙂 42" → "  42", "42 🙂 Good" → "42 Good"). Other letters, as in a city's name,
    /// are kept as they came: they are the data, and a terminal shows what it can of them.
    static func ascii(_ text: String) -> String {
        var output = ""
        var droppedEmoji = false
        for scalar in text.unicodeScalars {
            let afterEmoji = droppedEmoji
            droppedEmoji = false
            if scalar.isASCII {
                // The space after a dropped emoji, where a space or the start of a line is before it.
                if afterEmoji, scalar == " ", output.isEmpty || output.hasSuffix(" ") || output.hasSuffix("\n") {
                    continue
                }
                output.unicodeScalars.append(scalar)
            } else if let replacement = asciiSymbols[scalar] {
                output += replacement
            } else if scalar.properties.isEmojiPresentation || scalar.properties.isEmoji
                || scalar.value == 0xFE0F || scalar.value == 0x200D
            {
                droppedEmoji = true
            } else {
                output.unicodeScalars.append(scalar)
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
