import BreezeSystem

/// breezectl's command line, parsed: global options, the subcommand and its arguments.
struct CommandLineArguments {
    var socket: String?
    var json = false
    var units: String?
    var format: String?
    var waybar = false
    /// `watch --i3bar`: i3status-rust custom-block JSON.
    var i3bar = false
    /// `watch --once`: one line for the current state, then exit.
    var once = false
    /// `watch --count N`: exit after N lines; `search --count N`: at most N places (`maximumCount`).
    var count: Int?
    /// `search --interactive`: the full-screen view.
    var interactive = false
    /// `fleet --mqtt URL`: the broker to read.
    var mqtt: String?
    /// `fleet --config PATH`: breezed's configuration, whose `[mqtt]` names the broker when `--mqtt` is not given.
    var config: String?
    /// `fleet --ca-file PATH`: the authority an `mqtts://` broker is checked against.
    var caFile: String?
    /// `fleet --watch`: follow the changes.
    var watch = false
    /// Seconds to wait for the daemon; nil: `defaultTimeout`.
    var timeout: Double?
    var help = false
    var version = false
    var subcommand: Subcommand?
    var positional: [String] = []

    /// How long breezectl waits for the daemon by default: to connect and for each reply; for `watch`, until its
    /// first answer.
    static let defaultTimeout = 10.0
    /// The longest `--timeout`, a day: enough for any wait, and far from a value that would overflow a deadline.
    static let maximumTimeout = 86_400.0
    /// The most places a search answers with (breezed's `limit`), and so the largest `search --count`.
    static let maximumSearchCount = 50

    /// Options may come before or after the subcommand. A negative number is a value, never an option
    /// (`breezectl lookup -33.8688 151.2093`); `--` ends the options.
    /// Every option breezectl takes, for "did you mean".
    static let options = [
        "--socket", "--json", "--units", "--timeout", "--format", "--waybar", "--i3bar", "--once", "--count",
        "--interactive",
        "--mqtt", "--ca-file", "--config", "--watch", "--help", "--version",
    ]

    /// The option a mistyped one was most likely meant to be (`--jsno` → `--json`, `--unit` → `--units`): the
    /// closest within two edits, as for subcommands.
    static func optionSuggestion(for typed: String) -> String? {
        let word = Array(typed.lowercased())
        let scored = options.map { (name: $0, distance: Subcommand.editDistance(word, Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= 2 else { return nil }
        return best.name
    }

    static func parse(_ arguments: [String]) throws(CLIError) -> CommandLineArguments {
        var parsed = CommandLineArguments()
        var scanner = CommandLineScanner(arguments, endsOptionsWithDoubleDash: true, numbersArePlain: true)
        func value(_ flag: String) throws(CLIError) -> String {
            guard let value = scanner.value() else { throw CLIError(.usage, "\(flag) needs a value") }
            return value
        }
        while let token = scanner.next() {
            switch token {
            case .option(let flag, let argument):
                switch flag {
                case "--socket": parsed.socket = try value(flag)
                case "--json": parsed.json = true
                case "--units":
                    let unit = try value(flag).lowercased()
                    guard ["c", "f"].contains(unit) else {
                        throw CLIError(.usage, "--units is c or f, not \"\(unit)\"")
                    }
                    parsed.units = unit
                case "--timeout":
                    let text = try value(flag)
                    guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= maximumTimeout else {
                        throw CLIError(
                            .usage,
                            "--timeout is a number of seconds above 0 and up to \(Int(maximumTimeout)), "
                                + "not \"\(TerminalText.escaped(text))\"")
                    }
                    parsed.timeout = seconds
                case "--format": parsed.format = try value(flag)
                case "--waybar": parsed.waybar = true
                case "--i3bar": parsed.i3bar = true
                case "--once": parsed.once = true
                case "--count":
                    let text = try value(flag)
                    guard let count = Int(text), count > 0 else {
                        throw CLIError(
                            .usage, "--count is a whole number above 0, not \"\(TerminalText.escaped(text))\"")
                    }
                    parsed.count = count
                case "--interactive": parsed.interactive = true
                case "--mqtt": parsed.mqtt = try value(flag)
                case "--ca-file": parsed.caFile = try value(flag)
                case "--config": parsed.config = try value(flag)
                case "--watch": parsed.watch = true
                case "-h", "--help": parsed.help = true
                case "--version": parsed.version = true
                default:
                    let hint = Self.optionSuggestion(for: flag).map { "; did you mean \($0)?" } ?? ""
                    throw CLIError(.usage, "unknown option \"\(argument)\"" + hint)
                }
            case .plain(let argument) where parsed.subcommand == nil:
                if argument == "help" {
                    parsed.help = true
                    if let next = scanner.upcoming, let subcommand = Subcommand(rawValue: next) {
                        parsed.subcommand = subcommand
                        scanner.skip()
                    }
                    continue
                }
                guard let subcommand = Subcommand(rawValue: argument) else {
                    let hint = Subcommand.suggestion(for: argument).map { "; did you mean \($0)?" } ?? ""
                    throw CLIError(.usage, "unknown subcommand \"\(TerminalText.escaped(argument))\"\(hint)")
                }
                parsed.subcommand = subcommand
            case .plain(let argument):
                parsed.positional.append(argument)
            }
        }
        guard !parsed.help else { return parsed }
        if (parsed.waybar || parsed.i3bar || parsed.once) && parsed.subcommand != .watch {
            throw CLIError(.usage, "--waybar, --i3bar and --once go with watch")
        }
        if parsed.format != nil && ![.watch, .status, .where].contains(parsed.subcommand) {
            throw CLIError(.usage, "--format goes with watch, status and where")
        }
        if let count = parsed.count {
            switch parsed.subcommand {
            case .watch:
                if parsed.once { throw CLIError(.usage, "--once and --count: one or the other") }
            case .search:
                guard count <= maximumSearchCount else {
                    throw CLIError(.usage, "search --count is at most \(maximumSearchCount), not \(count)")
                }
                if parsed.interactive { throw CLIError(.usage, "--count goes with a search that prints, not the view") }
            default:
                throw CLIError(.usage, "--count goes with watch (lines) and search (places)")
            }
        }
        if parsed.interactive && parsed.subcommand != .search {
            throw CLIError(.usage, "--interactive goes with search")
        }
        if (parsed.mqtt != nil || parsed.caFile != nil || parsed.config != nil || parsed.watch)
            && parsed.subcommand != .fleet
        {
            throw CLIError(.usage, "--mqtt, --ca-file, --config and --watch go with fleet")
        }
        if parsed.mqtt != nil && parsed.config != nil {
            throw CLIError(.usage, "--mqtt and --config: one or the other")
        }
        if parsed.waybar && parsed.i3bar { throw CLIError(.usage, "--waybar and --i3bar: one or the other") }
        if parsed.once && parsed.json {
            throw CLIError(
                .usage, "--once prints one line: not with --json (breezectl --json status prints the objects)")
        }
        if let format = parsed.format,
            let unknown = WatchLine.tokens(in: format).first(where: { !WatchLine.knownTokens.contains($0) })
        {
            throw CLIError(
                .usage,
                "unknown token {\(TerminalText.escaped(unknown))} in --format; known: "
                    + WatchLine.knownTokens.map { "{\($0)}" }.joined(separator: " "))
        }
        return parsed
    }
}
