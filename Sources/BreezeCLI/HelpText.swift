import BreezeCore

/// breezectl's `--help`, in the shape swift-argument-parser gives: OVERVIEW, USAGE, OPTIONS, SUBCOMMANDS.
enum HelpText {
    static let globalOptions = """
          --socket <path>         breezed's socket (default: $BREEZE_SOCKET, else /run/breezed/breezed.sock)
          --json                  Print the daemon's JSON objects, one per line.
          --units <c|f>           Temperature unit (default: f where the locale is en_US, else c).
          --timeout <seconds>     How long to wait for breezed to answer (default: 10; watch waits this long
                                  for its first answer, then for updates as long as it takes).
          --version               Show the version.
          -h, --help              Show help information.
        """

    static var main: String {
        let subcommands =
            Subcommand.allCases.map { command in
                "  " + command.rawValue.padded(toLength: 24) + command.abstract
            } + ["  " + ShellCompletion.shortUsage.padded(toLength: 24) + ShellCompletion.abstract]
        let datasets = Subcommand.allCases.compactMap(\.dataset).map(\.rawValue).joined(separator: ", ")
        return """
            OVERVIEW: Query and control breezed, the Breeze location daemon.

            USAGE: breezectl [--socket <path>] [--json] [--units <c|f>] [--timeout <seconds>] <subcommand>

            OPTIONS:
            \(globalOptions)

            SUBCOMMANDS:
            \(subcommands.joined(separator: "\n"))

              See 'breezectl help <subcommand>' for detailed help.

            EXIT STATUS:
              0   success; \(datasets): with data (fresh or stale); refresh: no dataset failed
              1   other errors
              64  usage error
              69  breezed unreachable, or it did not answer within --timeout (refresh: not every dataset
                  answered in time); \(datasets): no data here (the provider has none for
                  the place, or web requests are off)
              75  no data now, try again later: a fetch failed (refresh: names the datasets) or is under way
              77  not permitted

            """
    }

    /// `breezectl help <subcommand>`: OVERVIEW, USAGE (and more about it), ARGUMENTS, OPTIONS (its own, then the
    /// global ones), EXAMPLES.
    static func subcommand(_ command: Subcommand) -> String {
        let help = command.help
        var text = "OVERVIEW: \(help.abstract)\n\n"
        text += "USAGE: breezectl \(help.usage)\n\n"
        if let discussion = help.discussion { text += wrapped(discussion, indent: 2) + "\n\n" }
        if !help.arguments.isEmpty {
            text += "ARGUMENTS:\n"
            for (name, description) in help.arguments {
                let label = "  " + name
                if label.count > 24 {
                    text += label + "\n" + wrapped(description, indent: 26) + "\n"
                } else {
                    let lines = wrapped(description, indent: 26)
                    text += label.padded(toLength: 26) + lines.dropFirst(26) + "\n"
                }
            }
            text += "\n"
        }
        text += "OPTIONS:\n"
        if let options = help.options { text += options + "\n" }
        text += globalOptions + "\n"
        if !help.examples.isEmpty {
            text += "\nEXAMPLES:\n"
            for (line, description) in help.examples {
                let sentence = description.prefix(1).uppercased() + description.dropFirst() + "."
                text += "  " + line + "\n" + wrapped(sentence, indent: 6) + "\n"
            }
        }
        return text + "\n"
    }

    /// `text` in lines of at most 100 columns, each indented by `indent` spaces.
    static func wrapped(_ text: String, indent: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && indent + line.count + 1 + word.count > 100 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        let margin = String(repeating: " ", count: indent)
        return lines.map { margin + $0 }.joined(separator: "\n")
    }

    /// `--format`'s tokens, wrapped to the options' column.
    static var tokenLines: String {
        var lines: [String] = []
        var line = ""
        for token in WatchLine.knownTokens.map({ "{\($0)}" }) {
            if !line.isEmpty && line.count + token.count + 2 > 76 {
                lines.append(line + ",")
                line = ""
            }
            line += (line.isEmpty ? "" : ", ") + token
        }
        lines.append(line + ".")
        return lines.map { String(repeating: " ", count: 26) + $0 }.joined(separator: "\n")
    }
}
