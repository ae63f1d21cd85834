import BreezeCore
import BreezeProtocol
import BreezeSystem
import Glibc

/// breezectl: parse, validate, run one subcommand against breezed's socket.
public enum BreezeCTL {
    public static let defaultSocket = "/run/breezed/breezed.sock"

    /// Colour on a terminal, never with `NO_COLOR` (set and not empty) or `TERM=dumb`.
    static func colorAllowed(isTerminal: Bool, environment: ProcessEnvironment.Variables) -> Bool {
        isTerminal && environment["NO_COLOR"].map(\.isEmpty) ?? true && environment["TERM"] != "dumb"
    }

    /// Runs with `arguments` (after the program name) and returns the exit status.
    public static func main(
        _ arguments: [String], environment: ProcessEnvironment.Variables = .process,
        isTerminal: Bool = isatty(1) == 1, output: TextOutput = .process
    ) -> Int32 {
        // `completion` is not one of breezed's subcommands: its help is its own.
        if arguments.first == "help" && arguments.dropFirst().first == "completion"
            || arguments.first == "completion" && arguments.contains(where: { $0 == "--help" || $0 == "-h" })
        {
            output.write(ShellCompletion.help)
            return 0
        }
        if arguments.first == "completion" { return ShellCompletion.run(Array(arguments.dropFirst()), output: output) }
        var output = output
        // The subcommand, once known: a usage error points to its help.
        var named: Subcommand?
        do throws(CLIError) {
            let parsed = try CommandLineArguments.parse(arguments)
            named = parsed.subcommand
            // Text for people in ASCII where the locale is not UTF-8; JSON and status-bar lines are for programs
            // that read UTF-8 whatever the locale.
            if !parsed.json, !parsed.waybar, !parsed.i3bar, !TerminalText.localeIsUTF8(environment) {
                output = output.ascii()
            }
            if parsed.version {
                output.write("breezectl \(Release.version)\n")
                return 0
            }
            if parsed.help {
                output.write(parsed.subcommand.map(HelpText.subcommand) ?? HelpText.main)
                return 0
            }
            guard let subcommand = parsed.subcommand else {
                throw CLIError(.usage, "a subcommand is needed")
            }
            guard subcommand.arity.contains(parsed.positional.count) else {
                throw CLIError(.usage, "usage: breezectl \(subcommand.usage)")
            }
            let locale = environment["LC_ALL"] ?? environment["LC_MESSAGES"] ?? environment["LANG"]
            let unit =
                parsed.units.flatMap(TemperatureUnit.init(rawValue:))
                ?? TemperatureUnit.preferred(forLocale: locale)
            let context = CommandContext(
                arguments: parsed, subcommand: subcommand,
                socket: parsed.socket ?? environment["BREEZE_SOCKET"] ?? defaultSocket,
                dashboard: Dashboard(unit: unit, color: colorAllowed(isTerminal: isTerminal, environment: environment)),
                output: output, isTerminal: isTerminal, environment: environment)
            // Parsed and validated before connecting, so that a usage error is one whatever the daemon's state.
            let command = try subcommand.command.init(context)
            try command.run(context)
            return 0
        } catch {
            var text = "breezectl: \(error.message)\n"
            if error.kind == .usage {
                // Arguments that did not parse still name the subcommand they were for.
                let subcommand = named ?? arguments.prefix { $0 != "--" }.lazy.compactMap(Subcommand.init).first
                text +=
                    subcommand.map { "Run 'breezectl help \($0.rawValue)' for its usage.\n" }
                    ?? "Run 'breezectl --help' for usage.\n"
            }
            output.error(text)
            return error.kind.rawValue
        }
    }
}
