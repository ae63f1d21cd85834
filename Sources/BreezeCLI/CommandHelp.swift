/// What `breezectl help <subcommand>` prints for one subcommand, kept with the subcommand's type: what it does, how
/// it is called, its arguments, its own options and examples.
struct CommandHelp {
    /// One line: what the subcommand does.
    var abstract: String
    /// The usage line after `breezectl `.
    var usage: String
    /// The number of positional arguments it takes.
    var arity: ClosedRange<Int> = 0...0
    /// Each argument's placeholder and what it is.
    var arguments: [(name: String, help: String)] = []
    /// Its own options, as lines of the OPTIONS section (before the global ones).
    var options: String? = nil
    /// More about it, a paragraph.
    var discussion: String? = nil
    /// Command lines, each with what it does.
    var examples: [(command: String, help: String)] = []

    /// The arguments of `status` and the dataset subcommands: none, or the words of a place to look at.
    static let placeArity = 0...Int.max

    /// The place `status` and the dataset subcommands look at instead of breezed's own.
    static let placeArgument = (
        name: "<place>",
        help: "A place to look at instead of breezed's own: a GeoNames id, or a name (its words quoted or not), "
            + "taken as 'select' takes it. breezed fetches its data (or takes it from its cache) for this answer "
            + "alone: its own place, the status bar and MQTT stay as they are."
    )
}
