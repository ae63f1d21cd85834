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
            "  " + command.rawValue.padding(toLength: 24, withPad: " ", startingAt: 0) + command.abstract
        } + ["  " + ShellCompletion.shortUsage.padding(toLength: 24, withPad: " ", startingAt: 0) + ShellCompletion.abstract]
        return """
            OVERVIEW: Query and control breezed, the Breeze location daemon.

            USAGE: breezectl [--socket <path>] [--json] [--units <c|f>] [--timeout <seconds>] <subcommand>

            OPTIONS:
            \(globalOptions)

            SUBCOMMANDS:
            \(subcommands.joined(separator: "\n"))

              See 'breezectl help <subcommand>' for detailed help.

            EXIT STATUS:
              0 success, 64 usage error, 69 breezed unreachable, 77 not permitted, 1 other errors.

            """
    }

    static func subcommand(_ command: Subcommand) -> String {
        var options = globalOptions
        if command == .watch {
            options = """
                  --format <text>         Print this text per update, with {name}, {city}, {country}, {country_code},
                                          {source}, {state}, {aqi}, {aqi_label}, {emoji}, {category}, {pm2_5},
                                          {pm10}, {pollen}, {latitude}, {longitude}, {temp}, {condition}, {icon},
                                          {icon_name}, {high}, {low}.
                  --waybar                Print Waybar custom-module JSON: {"text","tooltip","class"}.
                """ + "\n" + globalOptions
        }
        return """
            OVERVIEW: \(command.abstract)

            USAGE: breezectl \(command.usage)

            OPTIONS:
            \(options)

            """
    }
}
