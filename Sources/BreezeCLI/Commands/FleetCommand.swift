import BreezeMQTT

/// `breezectl fleet`: every breezed publishing to an MQTT broker, read from the broker rather than from breezed
/// (see `Fleet`).
struct FleetCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "List every breezed publishing to an MQTT broker: place, fix age, AQI, availability.",
        usage: "fleet [--mqtt <url> | --config <path>] [--ca-file <path>] [--json] [--watch]",
        options: """
              --mqtt <url>            The broker: mqtt[s]://[user[:password]@]host[:port].
              --config <path>         breezed's configuration, whose [mqtt] url, password_file and
                                      ca_file name the broker when --mqtt is not given
                                      (default: /etc/breezed/breezed.conf).
              --ca-file <path>        The authority an mqtts:// broker's certificate is checked against
                                      (default: the system's).
              --watch                 After the list, print each node again when it changes, until
                                      interrupted.
            """,
        discussion: "fleet reads the broker, not breezed: each node's retained topics (breeze/<node>/...). "
            + "Without --mqtt, the broker is breezed's own ([mqtt] in its configuration). With "
            + "--json, one NODE object per line. --timeout is how long to wait for the broker (default: 10); "
            + "exits 69 when it cannot be reached within it.",
        examples: [
            ("breezectl fleet", "the fleet on the broker this machine's breezed publishes to"),
            (
                "breezectl fleet --mqtt mqtt://broker.lan",
                "each node's place, the age of its fix, its AQI and whether "
                    + "it is online"
            ),
            (
                "breezectl fleet --mqtt mqtts://viewer:secret@broker.lan --ca-file /etc/ssl/certs/broker-ca.pem",
                "over TLS (port 8883), as a user, checked against the broker's own authority"
            ),
            (
                "breezectl --json fleet --mqtt mqtt://broker.lan --watch",
                "one NODE object per line, then one again "
                    + "for each node that changes"
            ),
        ])

    var broker: FleetBroker

    /// The broker checked before anything connects: a bad URL or configuration is a usage error.
    init(_ context: CommandContext) throws(CLIError) {
        broker = try FleetBroker(context.arguments)
    }

    func run(_ context: CommandContext) throws(CLIError) {
        let arguments = context.arguments
        try Fleet(
            broker: broker.broker, caFile: broker.caFile, json: context.json, watch: arguments.watch,
            timeout: context.timeout, output: context.output
        ).run()
    }
}
