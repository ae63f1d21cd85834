import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Signals as an async stream. A handler installed at once writes each signal's number into a pipe (all it does:
/// `write` is safe in a signal handler); a Dispatch read source turns the pipe's bytes into the stream, so handling
/// a signal is ordinary code.
///
/// Why not a Dispatch signal source: it installs its handler on Dispatch's manager thread some time after `resume`,
/// and a signal that came before then found the signal ignored (as it had to be meanwhile, or it would end the
/// process) and was lost: one `breezed` in about eight, stopped right after READY=1, never stopped. A byte in the pipe
/// waits for its reader, however late that is registered.
public enum SignalStream {
    /// Starts listening to `signals` (each taken from its default action now) and returns them as they come. Made
    /// once per process: the handler has one pipe.
    public static func make(_ signals: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // No descriptors left at start: the signals keep their default actions (TERM and INT still end breezed,
            // only not cleanly), rather than being ignored.
            continuation.finish()
            return stream
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        signalPipeWriteEnd = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(signalPipeWriteEnd, &byte, 1)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in signals { sigaction(number, &action, nil) }

        let readEnd = ends[0]
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: DispatchQueue(label: "breeze.signals"))
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 64)
            while true {
                let count = bytes.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                for byte in bytes[..<count] { continuation.yield(Int32(byte)) }
            }
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

/// The pipe's end the signal handler writes to; set before the handler is installed, never changed after.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
