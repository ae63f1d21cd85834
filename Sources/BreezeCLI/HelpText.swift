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
        let subcommands = Subcommand.allCases.map { command in
            "  " + command.rawValue.padded(toLength: 24) + command.abstract
        } + ["  " + ShellCompletion.shortUsage.padded(toLength: 24) + ShellCompletion.abstract]
        return """
            OVERVIEW: Query and control breezed, the Breeze location daemon.

            USAGE: breezectl [--socket <path>] [--json] [--units <c|f>] [--timeout <seconds>] <subcommand>

            OPTIONS:
            \(globalOptions)

            SUBCOMMANDS:
            \(subcommands.joined(separator: "\n"))

              See 'breezectl help <subcommand>' for detailed help.

            EXIT STATUS:
              0   success; air, pollen, climate, weather: with data (fresh or stale); refresh: no dataset failed
              1   other errors
              64  usage error
              69  breezed unreachable, or it did not answer within --timeout (refresh: not every dataset
                  answered in time); air, pollen, climate, weather: no data here (the provider has none for
                  the place, or web requests are off)
              75  no data now, try again later: a fetch failed (refresh: names the datasets) or is under way
              77  not permitted

            """
    }

    static func subcommand(_ command: Subcommand) -> String {
        var options = globalOptions
        if command == .watch {
            options = """
                  --format <text>         Print this text per update (with --waybar or --i3bar: their text), with
                \(tokenLines)
                                          An unknown {token} is a usage error.
                  --waybar                Print Waybar custom-module JSON: text, tooltip (each dataset's state,
                                          age and reason), class (the state when not fresh, then the AQI
                                          category), alt (the first class), percentage (the AQI of 0-500).
                  --i3bar                 Print i3status-rust custom-block JSON: text, state.
                  --once                  Print the current state as one line and exit (for polling bars).
                                          Without --once, watch outlives breezed: while it cannot be reached
                                          the line says so, and it connects again within 30 s.
                """ + "\n" + globalOptions
        }
        if command == .fleet {
            options = """
                  --mqtt <url>            The broker: mqtt[s]://[user[:password]@]host[:port].
                  --ca-file <path>        The authority an mqtts:// broker's certificate is checked against
                                          (default: the system's).
                  --json                  One NODE object per line.
                  --watch                 After the list, print each node again when it changes, until
                                          interrupted.
                  --timeout <seconds>     How long to wait for the broker (default: 10).
                  -h, --help              Show help information.
                """
        }
        return """
            OVERVIEW: \(command.abstract)

            USAGE: breezectl \(command.usage)

            OPTIONS:
            \(options)

            """
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
