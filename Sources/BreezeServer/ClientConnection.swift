import BreezeProtocol
import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One connected client, as the socket thread keeps it: the lines it sent not yet taken up, what waits to be sent
/// to it, what it watches, the handlers answering it, and its deadlines.
///
/// A class, not a struct: the server's table lends it by reference. As a struct, every read of a field through the
/// table (`clients[fd]!.outbox.queuedBytes`) copied the whole client, retaining each buffer it holds: a third of the
/// instructions the socket thread spent on a request.
final class ClientConnection {
    let fd: Int32
    let peer: SocketServer.Peer
    var framer: LineFramer
    /// The next line read and not yet handled, because a limit was reached (the client's requests in flight or
    /// replies waiting, the turn's time, a free handler). The framer holds the lines after it, unframed: at most one
    /// read's worth, since nothing more is read while one waits here.
    var next: LineFramer.Output?
    /// Since when a line has been begun and not ended (nil when none is).
    var lineSince: ContinuousClock.Instant?
    /// nil: not watching; otherwise the classes watched.
    var watching: Set<String>?
    /// The watched classes that have a bit in the server's `Broadcast`, as a mask: what `publish` tests per client.
    var watchMask: UInt64 = 0
    var outbox = Outbox()
    /// Told why it is being closed (or sent all it asked for): nothing more is queued or read; closed once what
    /// waits is sent.
    var closeAfterFlush = false
    /// What the poller watches this client for: input while it is not held back, room to write while output waits
    /// that the socket did not take.
    var watchesReadable = true
    var watchesWritable = false
    /// The handlers answering this client's requests, by serial: cancelled when it leaves.
    var tasks: [Int: Task<Void, Never>] = [:]
    var nextSerial = 0

    init(fd: Int32, peer: SocketServer.Peer, framer: LineFramer) {
        self.fd = fd
        self.peer = peer
        self.framer = framer
    }

    var hasOutput: Bool { outbox.hasOutput }
    var hasHeld: Bool { next != nil }

    /// A published object's line, with its class: what a client's queue keeps of an update.
    struct Update {
        var className: String
        var bytes: [UInt8]
    }

    /// What waits to be sent to the client: replies first, then the newest update of each class, and the line being
    /// written, as far as the socket took it.
    struct Outbox {
        var replies: [[UInt8]] = []
        /// The bytes in `replies`.
        var queuedBytes = 0
        var updates: [Update] = []
        var writing: [UInt8] = []
        var written = 0
        /// Since when the socket has taken nothing of what waits (nil while it takes it).
        var blockedSince: ContinuousClock.Instant?

        var hasOutput: Bool { written < writing.count || !replies.isEmpty || !updates.isEmpty }

        /// Queues an update; the newest replaces an older one of its class still queued.
        mutating func enqueue(_ update: Update) {
            if let index = updates.firstIndex(where: { $0.className == update.className }) {
                updates[index] = update
            } else {
                updates.append(update)
            }
        }

        mutating func enqueue(reply line: [UInt8]) {
            replies.append(line)
            queuedBytes += line.count
        }
    }

    enum Offer {
        case notWatching, sent, queued, gone
    }

    /// Hands a published update to this client: sent at once, without a copy or a trip through the event loop, when
    /// nothing waits before it; queued (replacing an older one of its class) when something does; only what the
    /// socket does not take is kept for later.
    func offer(
        _ update: (trusted: Update, others: Update),
        bytes: (trusted: UnsafeRawBufferPointer, others: UnsafeRawBufferPointer),
        bit: UInt64?
    ) -> Offer {
        if let bit {
            guard watchMask & bit != 0 else { return .notWatching }
        } else {
            guard watching?.contains(update.trusted.className) == true else { return .notWatching }
        }
        if hasOutput {
            outbox.enqueue(peer.trusted ? update.trusted : update.others)
            return .queued
        }
        switch Self.sendNow(peer.trusted ? bytes.trusted : bytes.others, to: fd) {
        case .sent:
            return .sent
        case .partly(let count):
            outbox.writing = peer.trusted ? update.trusted.bytes : update.others.bytes
            outbox.written = count
            outbox.blockedSince = .now
            return .queued
        case .gone:
            return .gone
        }
    }

    /// Writes what the socket takes. Replies go before updates. Returns false when the client must be closed.
    func flush() -> Bool {
        while true {
            if outbox.written == outbox.writing.count {
                outbox.writing = []
                outbox.written = 0
                // An emptied queue is replaced by the shared empty array, not kept with its buffer: an idle client
                // then holds no queue memory, and the fan-out's "anything waiting?" test reads no buffer of its own
                // (one cache miss per client, a fifth of publishing to 1,000 of them).
                if !outbox.replies.isEmpty {
                    outbox.writing = outbox.replies.removeFirst()
                    outbox.queuedBytes -= outbox.writing.count
                    if outbox.replies.isEmpty { outbox.replies = [] }
                } else if !outbox.updates.isEmpty {
                    outbox.writing = outbox.updates.removeFirst().bytes
                    if outbox.updates.isEmpty { outbox.updates = [] }
                } else {
                    outbox.blockedSince = nil
                    return !closeAfterFlush
                }
            }
            let count = retryingOnInterrupt {
                outbox.writing.withUnsafeBytes { bytes in
                    send(
                        fd, bytes.baseAddress! + outbox.written, bytes.count - outbox.written,
                        Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
            }
            if count > 0 {
                outbox.written += count
                outbox.blockedSince = nil
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if outbox.blockedSince == nil { outbox.blockedSince = .now }
                return true
            }
            return false  // EPIPE, ECONNRESET: the client is gone
        }
    }

    enum SendOutcome {
        case sent
        case partly(Int)
        case gone
    }

    /// One non-blocking send of a whole line.
    static func sendNow(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> SendOutcome {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .sent }
        let count = retryingOnInterrupt { send(fd, base, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        if count == bytes.count { return .sent }
        if count >= 0 { return .partly(count) }
        if errno == EAGAIN || errno == EWOULDBLOCK { return .partly(0) }
        return .gone
    }

    /// Sends `line` if the socket takes it now, and forgets it otherwise: a goodbye or a refusal, best effort.
    static func sendOnce(_ line: [UInt8], to fd: Int32) {
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }
}
