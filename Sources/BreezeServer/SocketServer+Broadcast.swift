public import BreezeCore
import BreezeProtocol

/// Broadcast: each update encoded once (twice when others see it coarser) and offered to every client watching its
/// class; a client with output waiting keeps only the newest of each class.
extension SocketServer {
    /// Publishes an update to every client watching its class. `others` is the version for untrusted peers
    /// (coordinates rounded); nil sends `message` to all.
    public func publish(_ message: JSONValue, others: JSONValue? = nil) {
        guard let className = message["class"]?.stringValue else { return }
        let trusted = Self.line(message)
        let untrusted = others.map(Self.line) ?? trusted
        let update = (
            trusted: ClientConnection.Update(className: className, bytes: trusted),
            others: ClientConnection.Update(className: className, bytes: untrusted)
        )
        var queued: [Int32] = []
        state.withLock { state in
            state.broadcast.latest[className] = (trusted, untrusted)
            let bit = state.bit(for: className)
            trusted.withUnsafeBytes { trustedBytes in
                untrusted.withUnsafeBytes { untrustedBytes in
                    state.clients.updateEach { client in
                        switch client.offer(update, bytes: (trustedBytes, untrustedBytes), bit: bit) {
                        case .notWatching, .sent: break
                        // A client gone is closed by the socket thread, whose next send to it fails the same way.
                        case .queued, .gone: queued.append(client.fd)
                        }
                    }
                }
            }
            state.schedule.pending.formUnion(queued)
        }
        if !queued.isEmpty { wakeup.wake() }
    }
}
