/// What the socket server keeps under its lock: the clients, which of them the loop must see to, the newest object of
/// each class, and the counts its bounds are kept by.
struct ServerState {
    var running = true
    var finished = false
    /// Who waits in `stopped()`, resumed once the loop has finished.
    var stopWaiters: [CheckedContinuation<Void, Never>] = []
    var clients = DescriptorTable<ClientConnection>()
    var nextID = 1
    var schedule = Schedule()
    var broadcast = Broadcast()
    var refused = Refusals()
    /// The bytes of replies waiting, over all clients.
    var queuedReplyBytes = 0
    /// Requests with a task answering them, over all clients.
    var handlersInFlight = 0

    /// Which clients the event loop must see to, and why.
    struct Schedule {
        /// Output queued, room to write, a handler finished.
        var pending = DescriptorSet()
        /// Output their socket did not take: watched for stalling.
        var blocked = DescriptorSet()
        /// A line begun and not ended: watched for `partialLineTimeout`.
        var midLine = DescriptorSet()
        /// A request waiting for a handler to be free: seen to when one is.
        var awaitingHandler = DescriptorSet()
        /// Clients whose first line since they sent it was not answered (the pass's time was spent): served first in
        /// the queued pass, in the order they came.
        var fresh = DescriptorQueue()
        /// Clients with more lines held after one was answered (they pipeline): served in the queued pass after
        /// `fresh`, in turn, as far as its time allows.
        var backlog = DescriptorQueue()
        /// Time spent answering in place in the current pass.
        var immediateSpent = Duration.zero

        /// Forgets `fd` everywhere.
        mutating func remove(_ fd: Int32) {
            pending.remove(fd)
            blocked.remove(fd)
            midLine.remove(fd)
            awaitingHandler.remove(fd)
            fresh.remove(fd)
            backlog.remove(fd)
        }

        mutating func removeAll() {
            pending.removeAll()
            blocked.removeAll()
            midLine.removeAll()
            awaitingHandler.removeAll()
            fresh.removeAll()
            backlog.removeAll()
        }
    }

    /// The newest object of each class, and the bit each class has in a client's watch mask.
    struct Broadcast {
        /// The newest object of each class: (precise, for trusted peers; as others see it).
        var latest: [String: (trusted: [UInt8], others: [UInt8])] = [:]
        /// A bit for each class published or listed in the snapshot order (at most 64), so that fanning an update out
        /// tests one bit per client instead of hashing the class name into each client's set.
        var classBits: [String: UInt64] = [:]

        func mask(of classes: Set<String>) -> UInt64 {
            classes.reduce(0) { $0 | (classBits[$1] ?? 0) }
        }

        /// The newest object of `className` as `peer` sees it, if one was published.
        func latest(_ className: String, for peer: SocketServer.Peer) -> [UInt8]? {
            latest[className].map { peer.trusted ? $0.trusted : $0.others }
        }
    }

    /// The class's bit, given one on its first use while bits remain (and set in the mask of each client already
    /// watching it); nil when all 64 are taken.
    mutating func bit(for className: String) -> UInt64? {
        if let bit = broadcast.classBits[className] { return bit }
        guard broadcast.classBits.count < 64 else { return nil }
        let bit = UInt64(1) << UInt64(broadcast.classBits.count)
        broadcast.classBits[className] = bit
        clients.updateEach { client in
            if client.watching?.contains(className) == true { client.watchMask |= bit }
        }
        return bit
    }
}

/// Connections refused at the client limit, kept (write side shut) until their clients close or a deadline passes,
/// so that each client reads the refusal instead of a reset.
struct Refusals {
    private var entries: [(fd: Int32, deadline: ContinuousClock.Instant)] = []

    var isEmpty: Bool { entries.isEmpty }
    var descriptors: [Int32] { entries.map(\.fd) }

    /// Keeps `fd` until `deadline`; returns the oldest kept when that makes more than `limit`, for the caller to close.
    mutating func keep(_ fd: Int32, until deadline: ContinuousClock.Instant, limit: Int) -> Int32? {
        entries.append((fd, deadline))
        guard entries.count > max(0, limit) else { return nil }
        return entries.removeFirst().fd
    }

    /// Forgets `fd`; false when it is not a refused connection.
    mutating func remove(_ fd: Int32) -> Bool {
        guard let index = entries.firstIndex(where: { $0.fd == fd }) else { return false }
        entries.remove(at: index)
        return true
    }

    /// Forgets those whose deadline has passed, and returns them.
    mutating func removeExpired(at now: ContinuousClock.Instant) -> [Int32] {
        let expired = entries.filter { $0.deadline <= now }.map(\.fd)
        entries.removeAll { $0.deadline <= now }
        return expired
    }

    mutating func removeAll() {
        entries.removeAll()
    }
}
