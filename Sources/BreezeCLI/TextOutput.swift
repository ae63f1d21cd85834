import BreezeSystem

/// Where breezectl writes: the process's standard output and error, or, in tests, anything that takes text.
public struct TextOutput: Sendable {
    public var standard: @Sendable (String) -> Void
    public var error: @Sendable (String) -> Void

    public init(standard: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void) {
        self.standard = standard
        self.error = error
    }

    public static let process = TextOutput(
        standard: { StandardStream.output($0) },
        error: { StandardStream.error($0) })

    func write(_ text: String) { standard(text) }

    /// The same output with breezectl's symbols in ASCII (`TerminalText.ascii`), for a locale that is not UTF-8.
    func ascii() -> TextOutput {
        let standard = self.standard
        let error = self.error
        return TextOutput(standard: { standard(TerminalText.ascii($0)) }, error: { error(TerminalText.ascii($0)) })
    }
}
