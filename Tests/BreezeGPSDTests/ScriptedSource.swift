import BreezeCore
import Foundation
import Synchronization

/// A location source whose events the test sends itself, in order, with no I/O. It can tell when the service has
/// handled everything sent: the service asks for the next event only after handling the one before.
final class ScriptedSource: LocationSource {
    let kind: LocationSourceKind
    let sendsFixesContinuously: Bool

    private struct State {
        var queued: [LocationSourceEvent] = []
        var waiter: CheckedContinuation<LocationSourceEvent?, Never>?
        var sent = 0
        /// How many events the reader has asked for (the one it waits for included).
        var asked = 0
        var finished = false
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
        send(.fix(LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), mode: .threeD,
            receivedAt: .now, receivedWallTime: Date().timeIntervalSince1970, source: kind)))
    }

    /// Waits (up to `timeout` seconds) until the reader has handled every event sent and asks for the next.
    func waitUntilHandled(timeout: Double = 10) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.asked > $0.sent }) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

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
