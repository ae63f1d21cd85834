import BreezeCore
import BreezeData
import BreezeProtocol
import BreezeServer
import FoundationEssentials
import Synchronization

/// Carries the pipeline's dataset updates to the socket server (which starts after the pipeline is made).
final class Publisher: Sendable {
    private struct Target {
        var server: SocketServer
        /// With the wall time it was published at.
        var onChange: @Sendable (DataUpdate, Double) -> Void
    }

    private let target = Mutex<Target?>(nil)

    func attach(_ server: SocketServer, onChange: @escaping @Sendable (DataUpdate, Double) -> Void) {
        target.withLock { $0 = Target(server: server, onChange: onChange) }
    }

    func send(_ update: DataUpdate) {
        guard let target = target.withLock({ $0 }) else { return }
        let now = Date().timeIntervalSince1970
        target.server.publish(DatasetMessage.message(
            update.dataset, status: update.status, place: update.place, report: update.report,
            fetchedAt: update.fetchedAt, now: now))
        target.onChange(update, now)
    }
}
