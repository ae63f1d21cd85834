/// A location source's life: its event stream is handed out once, and once stopped it stays stopped.
public struct SourceLifecycle: Sendable {
    public private(set) var isStarted = false
    public private(set) var isStopped = false

    public init() {}

    /// Marks the stream handed out. False when it already was, or the source has stopped: the caller then hands out
    /// a finished stream.
    public mutating func start() -> Bool {
        guard !isStarted, !isStopped else { return false }
        isStarted = true
        return true
    }

    public mutating func stop() {
        isStopped = true
    }
}
