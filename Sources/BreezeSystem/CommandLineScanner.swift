/// Reads a command line an argument at a time, for both executables: `--name=value` is the option `--name`
/// followed by the argument `value`; what is an option and what a plain argument is decided here, what each
/// option means by the caller.
public struct CommandLineScanner {
    /// One step through the command line.
    public enum Token: Equatable, Sendable {
        /// An option: its name (`--socket`, `-h`; the part before `=`), and the argument as written, for messages.
        case option(String, argument: String)
        /// An argument that is not an option.
        case plain(String)
    }

    private var remaining: ArraySlice<String>
    private let endsOptionsWithDoubleDash: Bool
    private let numbersArePlain: Bool
    private var optionsEnded = false

    /// - Parameters:
    ///   - endsOptionsWithDoubleDash: `--` ends the options (every later argument is plain); else `--` is an option.
    ///   - numbersArePlain: an argument that reads as a number (`-33.8688`) is plain, never an option.
    ///   Without either, every argument is an option but a lone `-` or one not starting with `-`.
    public init(_ arguments: [String], endsOptionsWithDoubleDash: Bool = false, numbersArePlain: Bool = false) {
        remaining = arguments[...]
        self.endsOptionsWithDoubleDash = endsOptionsWithDoubleDash
        self.numbersArePlain = numbersArePlain
    }

    /// The next option or plain argument; nil at the end.
    public mutating func next() -> Token? {
        while let argument = remaining.popFirst() {
            let isOption =
                !optionsEnded && argument.hasPrefix("-") && argument.count > 1
                && !(numbersArePlain && Double(argument) != nil)
            guard isOption else { return .plain(argument) }
            var name = argument
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                remaining.insert(String(argument[argument.index(after: equals)...]), at: remaining.startIndex)
            }
            if endsOptionsWithDoubleDash && name == "--" {
                optionsEnded = true
                continue
            }
            return .option(name, argument: argument)
        }
        return nil
    }

    /// The argument after the option just read (its `=value`, or the next one on the line), whatever it looks
    /// like; nil at the end.
    public mutating func value() -> String? {
        remaining.popFirst()
    }

    /// The next argument, without taking it.
    public var upcoming: String? {
        remaining.first
    }

    /// Takes the next argument, seen with `upcoming`.
    public mutating func skip() {
        _ = remaining.popFirst()
    }
}
