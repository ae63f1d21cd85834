import BreezeCore
import Foundation
import Synchronization

/// A location source whose events the test sends itself, in order, with no I/O. It knows when the service has
/// handled everything sent: the service asks for the next event only after handling the one before.
final class ScriptedSource: LocationSource {
    let kind: LocationSourceKind
    let sendsFixesContinuously: Bool

    private struct State {
        var queued: [LocationSourceEvent] = []
        var waiter: CheckedContinuation<LocationSourceEvent?, Never>?
        var sent = 0
        var asked = 0
        var finished = false
        var enabled: [Bool] = []
    }

    private let state = Mutex(State())

    init(_ kind: LocationSourceKind, continuous: Bool = true) {
        self.kind = kind
        sendsFixesContinuously = continuous
    }

    func events() -> AsyncStream<LocationSourceEvent> {
        AsyncStream(unfolding: { [self] in await next() })
    }

    func stop() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    func setEnabled(_ enabled: Bool) {
        state.withLock { $0.enabled.append(enabled) }
    }

    /// What the service told the source of the privacy switch, in order.
    var switchCalls: [Bool] { state.withLock { $0.enabled } }

    func send(_ event: LocationSourceEvent) {
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
    func sendFix(_ latitude: Double, _ longitude: Double) {
        send(.fix(Self.fix(latitude, longitude, kind)))
    }

    static func fix(_ latitude: Double, _ longitude: Double, _ kind: LocationSourceKind) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), mode: .threeD,
            receivedAt: .now, receivedWallTime: 1_780_000_000, source: kind)
    }

    /// Whether the reader has handled every event sent and asks for the next.
    var isIdle: Bool { state.withLock { $0.asked > $0.sent } }

    private func next() async -> LocationSourceEvent? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> LocationSourceEvent?? in
                state.asked += 1
                if !state.queued.isEmpty { return .some(state.queued.removeFirst()) }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
