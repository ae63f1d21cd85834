import BreezeProtocol
import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Reading: each client's bytes framed into lines, and its lines taken up as far as its bounds and the turn's time
/// allow. A client held back stops being read, and its socket's buffer then holds it back.
extension SocketServer {
    /// Reads what the client sent into `buffer`, unless it is held back, and takes up its lines as far as its limits
    /// allow.
    func readFrom(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) {
        while true {
            let count = retryingOnInterrupt { recv(fd, buffer.baseAddress, buffer.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if count <= 0 {
                remove(fd)
                return
            }
            let reading = state.withLock { state -> Bool in
                guard let client = state.clients[fd] else { return false }
                client.framer.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                if client.framer.isInsideLine {
                    if client.lineSince == nil { client.lineSince = .now }
                    state.schedule.midLine.insert(fd)
                } else {
                    client.lineSince = nil
                    state.schedule.midLine.remove(fd)
                }
                return true
            }
            guard reading else { return }
            queue(fd, takeUpLines(fd, visit: .onReadiness))
            // Held back (a limit reached, or lines queued): the rest stays in the socket, whose buffer then holds the
            // client back.
            guard state.withLock({ $0.clients.read(fd) { $0.hasHeld } == false }) else {
                updateInterest(fd)
                return
            }
            if count < buffer.count { return }
        }
    }

    /// How far a visit to a client goes.
    enum Visit {
        /// The client just sent something: its first line is answered (a trusted peer's even when the pass's time is
        /// spent), the rest queued.
        case onReadiness
        /// Its turn in the queue: lines are answered while the pass's time and the client's limits allow.
        case queued
    }

    /// What a visit left of a client's lines.
    enum LinesLeft {
        /// None complete: it is read again when it sends more.
        case none
        /// One waits for the client's own limits (replies unread, requests in flight, a free handler): it is seen to
        /// when they allow.
        case waitingForLimits
        /// One waits, and none was answered: the pass's time was spent.
        case unanswered
        /// More wait after the ones answered.
        case more
    }

    /// Handles the client's held lines as far as the visit and its limits allow.
    func takeUpLines(_ fd: Int32, visit: Visit) -> LinesLeft {
        var answered = 0
        while true {
            let next = state.withLock { state -> (LineFramer.Output, Peer)?? in
                guard let client = state.clients[fd] else { return .some(nil) }
                if client.next == nil { client.next = client.framer.next() }
                guard let next = client.next else { return .some(nil) }
                guard canTakeLine(client, state) else { return nil }
                return (next, client.peer)
            }
            guard let next else { return .waitingForLimits }
            guard let (output, peer) = next else { return .none }
            if visit == .onReadiness && answered == 1 { return .more }
            switch take(output, from: fd, peer: peer, budgeted: visit == .queued || !peer.trusted) {
            case .answered: answered += 1
            case .outOfTime: return answered == 0 ? .unanswered : .more
            case .waitsForLimits: return .waitingForLimits
            }
        }
    }

    /// Queues the client for the queued pass when a visit left lines it can take up.
    func queue(_ fd: Int32, _ left: LinesLeft) {
        switch left {
        case .none, .waitingForLimits: return
        case .unanswered: state.withLock { $0.schedule.fresh.append(fd) }
        case .more: state.withLock { $0.schedule.backlog.append(fd) }
        }
    }

    /// The queued pass, once a turn: first lines left over, then pipelined lines, a client at a time in the order they
    /// were queued, while the pass's time lasts. A client with more left goes to the back of the backlog.
    func serveQueued() {
        let limit = Duration.nanoseconds(Int64(configuration.immediateWorkPerTurn * 1e9))
        var visits = state.withLock { state in
            state.schedule.immediateSpent = .zero
            return state.schedule.fresh.count + state.schedule.backlog.count
        }
        var visited: [Int32] = []
        while visits > 0 {
            visits -= 1
            let fd = state.withLock { state -> Int32? in
                guard state.schedule.immediateSpent < limit else { return nil }
                return state.schedule.fresh.popFirst() ?? state.schedule.backlog.popFirst()
            }
            guard let fd else { break }
            visited.append(fd)
            queue(fd, takeUpLines(fd, visit: .queued))
        }
        guard !visited.isEmpty else { return }
        servePending()
        visited.forEach(updateInterest)
    }

    /// Marks the client's next held line as taken up.
    func consumeLine(_ fd: Int32) {
        state.withLock { state in state.clients[fd]?.next = nil }
    }
}
