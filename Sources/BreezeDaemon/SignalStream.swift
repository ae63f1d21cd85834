import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Signals as an async stream: each signal is ignored for its default action and delivered through a
/// `DispatchSource`, so handling it is ordinary code rather than an async-signal-safe handler.
public enum SignalStream {
    public static func make(_ signals: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let queue = DispatchQueue(label: "breeze.signals")
        var sources: [DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        let keep = SourceBox(sources)
        continuation.onTermination = { _ in keep.cancel() }
        return stream
    }

    private final class SourceBox: @unchecked Sendable {
        // @unchecked: the array is written once in init and only read in `cancel`, on the terminating thread.
        let sources: [DispatchSourceSignal]
        init(_ sources: [DispatchSourceSignal]) { self.sources = sources }
        func cancel() { sources.forEach { $0.cancel() } }
    }
}
