import BreezeCore

/// A location source passed through unchanged, with everything it sends recorded: a test can wait for the source to
/// have sent something (a fix the service must ignore, say) instead of sleeping and hoping it did.
public struct TappedSource: LocationSource {
    public let source: any LocationSource
    public let recorder = EventRecorder<LocationSourceEvent>()

    public init(_ source: any LocationSource) {
        self.source = source
    }

    public var kind: LocationSourceKind { source.kind }
    public var sendsFixesContinuously: Bool { source.sendsFixesContinuously }

    public func events() -> AsyncStream<LocationSourceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LocationSourceEvent.self)
        let upstream = source.events()
        let recorder = recorder
        let task = Task {
            for await event in upstream {
                recorder.append(event)
                continuation.yield(event)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    public func stop() { source.stop() }
    public func setEnabled(_ enabled: Bool) { source.setEnabled(enabled) }

    /// The fixes sent so far.
    public var fixCount: Int {
        recorder.all.count { if case .fix = $0 { true } else { false } }
    }
}
