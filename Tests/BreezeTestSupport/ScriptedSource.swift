import BreezeCore
import Foundation
import Synchronization

/// A location source whose events the test sends itself, in order, with no I/O. It knows when the service has
/// handled everything sent: the service asks for the next event only after handling the one before.
public final class ScriptedSource: LocationSource {
    public let kind: LocationSourceKind
    public let sendsFixesContinuously: Bool

    private struct State {
        /// Sent and not yet asked for: `queued[taken...]`. Taken from the front by an index, not `removeFirst`,
        /// which moves the whole rest each time: for the 20,000 fixes of a flood test that is seconds of one
        /// cooperative thread (of two, on a two-core machine), a stall for every test running beside it.
        var queued: [LocationSourceEvent] = []
        var taken = 0
        var waiter: CheckedContinuation<LocationSourceEvent?, Never>?
        var sent = 0
        var asked = 0
        var finished = false
        var enabled: [Bool] = []

        mutating func takeQueued() -> LocationSourceEvent? {
            guard taken < queued.count else { return nil }
            let event = queued[taken]
            taken += 1
            if taken == queued.count {
                queued.removeAll(keepingCapacity: true)
                taken = 0
            }
            return event
        }
    }

    private let state = Mutex(State())

    public init(_ kind: LocationSourceKind, continuous: Bool = true) {
        self.kind = kind
        sendsFixesContinuously = continuous
    }

    public func events() -> AsyncStream<LocationSourceEvent> {
        AsyncStream(unfolding: { [self] in await next() })
    }

    public func stop() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    public func setEnabled(_ enabled: Bool) {
        state.withLock { $0.enabled.append(enabled) }
    }

    /// What the service told the source of the privacy switch, in order.
    public var switchCalls: [Bool] { state.withLock { $0.enabled } }

    public func send(_ event: LocationSourceEvent) {
        let waiter = state.withLock { state in
            state.sent += 1
            guard let waiter = state.waiter else {
                state.queued.append(event)
                return nil as CheckedContinuation<LocationSourceEvent?, Never>?
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: event)
    }

    /// A fix at the position, received now.
    public func sendFix(_ latitude: Double, _ longitude: Double) {
        send(.fix(Self.fix(latitude, longitude, kind)))
    }

    public static func fix(_ latitude: Double, _ longitude: Double, _ kind: LocationSourceKind) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), mode: .threeD,
            receivedAt: .now, receivedWallTime: 1_780_000_000, source: kind)
    }

    /// Whether the reader has handled every event sent and asks for the next.
    public var isIdle: Bool { state.withLock { $0.asked > $0.sent } }

    /// Waits (up to `timeout` seconds) until the reader has handled every event sent and asks for the next.
    public func waitUntilHandled(timeout: Double = 10) async -> Bool {
        let deadline = TestTime.deadline(after: timeout)
        while ContinuousClock.now < deadline {
            if isIdle { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    private func next() async -> LocationSourceEvent? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> LocationSourceEvent?? in
                state.asked += 1
                if let event = state.takeQueued() { return .some(event) }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
