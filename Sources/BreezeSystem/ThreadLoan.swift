/// How a thread of its own (gpsd's reader) lends itself to the executor its readers' tasks run on, when it hands
/// them a value: it runs the jobs that are ready then (the one its hand-off made ready, and what that job makes
/// ready in turn) itself before it goes back to its wait, where without the loan it would wake one of the
/// executor's threads for them.
///
/// A moving receiver hands on every fix, and waking a sleeping thread for it cost more processor time than all of
/// the fix's work; the reader's thread is awake anyway, and would sleep again at once.
public struct ThreadLoan: Sendable {
    private let lend: @Sendable (_ body: () -> Void) -> Void

    /// A loan through `lend`, which must run `body` once, on the calling thread, and may then run ready jobs there.
    public init(_ lend: @escaping @Sendable (_ body: () -> Void) -> Void) {
        self.lend = lend
    }

    /// No loan: `body` runs, and the executor's own threads take the jobs it makes ready.
    public static let none = ThreadLoan { $0() }

    /// Runs `body`, which hands values to tasks, and then, on this thread, what the executor lets it of the jobs
    /// made ready.
    public func run(_ body: () -> Void) {
        lend(body)
    }
}
