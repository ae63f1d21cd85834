import BreezeCore
import BreezeData
import BreezeProtocol
import BreezeServer
import Foundation
import Synchronization

/// Carries the pipeline's dataset updates to the socket server (which starts after the pipeline is made).
final class Publisher: Sendable {
    private struct Target {
        var server: SocketServer
        var onChange: @Sendable (DataUpdate) -> Void
    }

    private let target = Mutex<Target?>(nil)

    func attach(_ server: SocketServer, onChange: @escaping @Sendable (DataUpdate) -> Void) {
        target.withLock { $0 = Target(server: server, onChange: onChange) }
    }

    func send(_ update: DataUpdate) {
        guard let target = target.withLock({ $0 }) else { return }
        let now = Date().timeIntervalSince1970
        switch update {
        case .air(let state): target.server.publish(DatasetMessage.air(state, now: now))
        case .pollen(let state): target.server.publish(DatasetMessage.pollen(state, now: now))
        case .climate(let state): target.server.publish(DatasetMessage.climate(state, now: now))
        }
        target.onChange(update)
    }
}
