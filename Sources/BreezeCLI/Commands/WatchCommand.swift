/// `breezectl watch`: a line per update, for status bars; it outlives breezed's restarts (see `WatchLoop`).
struct WatchCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Print a line per update until interrupted.",
        usage: "watch [--json | --format <text> | --waybar | --i3bar] [--once | --count <n>]",
        options: """
              --format <text>         Print this text per update (with --waybar or --i3bar: their text), with
            \(HelpText.tokenLines)
                                      A missing value is empty, or the default after a bar:
                                      {aqi|?}. An unknown {token} is a usage error.
              --waybar                Print Waybar custom-module JSON: text, tooltip (each dataset's state,
                                      age and reason), class (the state when not fresh, then the AQI
                                      category), alt (the first class), percentage (the AQI of 0-500).
              --i3bar                 Print i3status-rust custom-block JSON: text, state.
              --once                  Print the current state as one line and exit (for polling bars).
                                      Without --once, watch outlives breezed: while it cannot be reached
                                      the line says so, and it connects again within 30 s.
              --count <n>             Exit (0) after printing n lines, whatever they say.
            """,
        examples: [
            ("breezectl watch --format '{emoji} {aqi} {city}'", "the AQI emoji, the index and the city, per update"),
            ("breezectl watch --waybar", "a Waybar custom module"),
            ("breezectl watch --once --i3bar", "one line for a bar that polls"),
            ("breezectl watch --once", "the current state as one line of text"),
            ("breezectl --json watch --count 3", "the first three objects, then exit"),
        ])

    init(_ context: CommandContext) throws(CLIError) {}

    /// Connects by itself, again after each loss of breezed.
    func run(_ context: CommandContext) throws(CLIError) {
        try WatchLoop(
            socket: context.socket, timeout: context.timeout, renderer: context.renderer, output: context.output,
            once: context.arguments.once, count: context.arguments.count
        ).run()
    }
}
