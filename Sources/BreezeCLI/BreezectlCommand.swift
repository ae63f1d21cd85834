/// One breezectl subcommand: its help, then parse (from the command line, before any connection, so that a usage
/// error is one whatever the daemon's state), then run.
protocol BreezectlCommand {
    static var help: CommandHelp { get }
    /// Validates the positional arguments (their number is checked against `help.arity` before) and options.
    init(_ context: CommandContext) throws(CLIError)
    func run(_ context: CommandContext) throws(CLIError)
}
