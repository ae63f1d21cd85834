import CEpoll
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Signals as an async stream. A handler installed at once marks each signal pending and wakes an eventfd (all it
/// does: an atomic `or` and `write` are safe in a signal handler); a Dispatch read source turns what is pending into
/// the stream, so handling a signal is ordinary code.
///
/// Why not a Dispatch signal source: it installs its handler on Dispatch's manager thread some time after `resume`,
/// and a signal that came before then found the signal ignored (as it had to be meanwhile, or it would end the
/// process) and was lost: one `breezed` in about eight, stopped right after READY=1, never stopped. A pending mark
/// waits for its reader, however late that is registered.
///
/// A signal that comes again before it is read is read once (a second TERM or HUP says nothing the first did not).
/// HUP is read before TERM and INT: a reload asked for together with a stop is not made after it.
public enum SignalStream {
    /// Starts listening to `signals` (each taken from its default action now) and returns them as they come. Made
    /// once per process: the handler has one eventfd.
    public static func make(_ signals: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeup >= 0 else {
            // No descriptor left at start: the signals keep their default actions (TERM and INT still end breezed,
            // only not cleanly, and HUP too), rather than being ignored; the stream stays open and says nothing.
            _ = continuation
            return stream
        }
        _ = pendingSignals.load(ordering: .relaxed)  // made before the handler can need it
        signalWakeup = wakeup
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            guard number > 0, number < 64 else { return }
            let saved = errno
            pendingSignals.bitwiseOr(1 << UInt64(number), ordering: .sequentiallyConsistent)
            var one: UInt64 = 1
            _ = write(signalWakeup, &one, 8)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in signals { sigaction(number, &action, nil) }

        let order = signals.sorted { ($0 == SIGHUP ? 0 : 1, $0) < ($1 == SIGHUP ? 0 : 1, $1) }
        let source = DispatchSource.makeReadSource(
            fileDescriptor: wakeup, queue: DispatchQueue(label: "breeze.signals"))
        source.setEventHandler {
            var count: UInt64 = 0
            _ = read(wakeup, &count, 8)
            let pending = pendingSignals.exchange(0, ordering: .sequentiallyConsistent)
            for number in order where pending & (1 << UInt64(number)) != 0 { continuation.yield(number) }
        }
        source.resume()
        let keep = SourceBox(source)
        continuation.onTermination = { _ in keep.cancel() }
        return stream
    }

    private final class SourceBox: @unchecked Sendable {
        // @unchecked: the source is set once in init and only cancelled after.
        let source: any DispatchSourceRead
        init(_ source: any DispatchSourceRead) { self.source = source }
        func cancel() { source.cancel() }
    }
}

/// Signals caught and not yet read, one bit each.
private let pendingSignals = Atomic<UInt64>(0)
/// The eventfd the signal handler wakes; set before the handler is installed, never changed after.
nonisolated(unsafe) private var signalWakeup: Int32 = -1
