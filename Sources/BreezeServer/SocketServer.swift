public import BreezeProtocol
import BreezeCore
import BreezeSystem
import FoundationEssentials
import CEpoll
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's socket: accepts clients, answers requests, and fans updates out to subscribers.
///
/// One thread runs the event loop (epoll over the listener, the clients and a wake-up pipe). Each update is
/// encoded once and its bytes shared by every subscriber. A client's queue holds at most one pending update per
/// class (the newest replaces an older one not yet sent) and a bounded number of replies, so a slow client costs
/// a bounded amount of memory, never receives stale state after fresh, and never holds others back; one that
/// accepts no bytes for `stallTimeout` while it has some waiting is closed with an `ERROR` saying why.
///
/// The lock rule: under `state`'s lock only memory work and sends with `MSG_DONTWAIT` on non-blocking sockets
/// happen (such a send copies into the socket's buffer or returns `EAGAIN`; it never waits for the peer), because
/// `publish` takes the lock from the daemon's actor. Reading credentials, `epoll_ctl`, `close` and `malloc_trim`
/// run outside it. Only the socket thread closes a client's descriptor, so one it watches is never reused under it.
public final class SocketServer: Sendable {
    /// Every bound the server keeps, in one place; docs/PROTOCOL.md ("Bounds") says what a client sees at each.
    public struct Configuration: Sendable {
        public var release = "0.1.0"
        /// Clients served at once; one more is told `too-many-clients` and closed.
        public var maximumClients = 1_024
        /// Of those, the places only trusted peers may take: a local user who opens every connection it can still
        /// leaves root and breezed's group room to run `breezectl` (as PostgreSQL reserves connections for its
        /// superusers). At most half the clients.
        public var reservedForTrusted = 16
        /// Bytes in a request line; a longer one is dropped with `line-too-long`.
        public var maximumLineLength = 65_536
        /// Replies waiting for one client. At the cap it gets one `slow-client` error, then is closed once what
        /// waits is sent; nothing more is queued for it.
        public var maximumQueuedReplies = 256
        /// Requests of one client being handled at once. Eight: a client has no use for more (breezectl sends one
        /// at a time; a program matching replies by id gains nothing past the two cores the daemon runs on), and
        /// eight handlers of each of 1,024 clients is still a bounded amount of work.
        public var maximumRequestsInFlight = 8
        /// Replies waiting at which the server stops reading a client's requests (below `maximumQueuedReplies`, so
        /// a client that pipelines and reads slowly is held back by its socket instead of cut off). Small: what waits
        /// here is the daemon's memory (beyond what the client's socket buffer takes), and every client may do it;
        /// 16 replies of a few KiB each, times 1,024 clients, stays within tens of MiB.
        public var replyHighWater = 16
        /// Bytes of replies waiting at which the server stops reading a client, as `replyHighWater` does: a few
        /// search answers, so that what 1,024 clients can leave unread is bounded in bytes, not only in replies.
        public var replyHighWaterBytes = 32_768
        /// Bytes of replies waiting for all clients together past which a client that has any waiting is not read
        /// until it reads: the daemon's memory under a crowd that asks and never reads stays this, whatever the
        /// crowd's size. A client with nothing waiting is always served.
        public var maximumQueuedReplyBytes = 4 << 20
        /// Requests handed to the asynchronous handler at once, over all clients; past it a client's next such
        /// request waits (unread) until one is answered. The handler's work (a web request, a state change) is
        /// slow, and each one waiting costs a task's memory.
        public var maximumHandlersInFlight = 32
        /// Time the socket thread spends per turn of its loop answering requests in place, twice: once for the
        /// first lines of the clients that just sent some (trusted peers' first lines are answered even when it is
        /// spent), once for the lines queued behind those (a client that pipelines) and the first lines left over.
        /// What is left waits for the next turn, which comes straight back. It keeps a crowd asking for expensive
        /// answers from delaying a client that asks one thing at a time by more than about twice this.
        public var immediateWorkPerTurn = 0.004
        /// Seconds a client may hold a line begun and not ended; then it gets `slow-client` and is closed. A client
        /// that has begun no line (a watcher) waits as long as it likes.
        public var partialLineTimeout = 60.0
        /// Seconds a client may accept nothing while output waits for it.
        public var stallTimeout = 30.0
        /// Refused connections kept open (write side shut) so their clients can read why; past it the oldest goes.
        public var maximumRefused = 64
        /// Seconds a refused connection is kept for its client to read the refusal, if it does not close first.
        public var refusedLinger = 5.0
        /// Seconds without socket events, after some, before the freed heap goes back to the system.
        public var trimAfterIdle = 2.0
        /// Called on the socket thread at that moment too, for the owner's own memory to give back.
        public var onIdle: (@Sendable () -> Void)?
        public var trust = TrustPolicy()
        /// Classes in the order a snapshot lists them.
        public var snapshotOrder = ["PERMISSION", "LOCATION"] + Dataset.allCases.map(\.className)
        /// The classes `watch` may name, in the order its reply lists them; any other is `bad-argument`.
        public var watchableClasses = ["PERMISSION", "LOCATION"] + Dataset.allCases.map(\.className)

        public init() {}
    }

    /// A connected client, as request handlers see it.
    public struct Peer: Sendable, Hashable {
        public var id: Int
        public var credentials: PeerCredentials?
        public var trusted: Bool
    }

    /// Answers the requests the server does not answer itself (everything but status, watch, unwatch, version).
    public typealias Handler = @Sendable (ProtocolRequest, Peer) async -> [JSONValue]
    /// Answers a request in place, on the socket thread, when it can do so at once without blocking (a read of
    /// memory the owner keeps for it): the lines to send, encoded, each ending in a newline and carrying the
    /// request's id; nil hands the request to `Handler`. Called before `Handler` for every request the server does
    /// not answer itself.
    public typealias ImmediateHandler = @Sendable (ProtocolRequest, Peer) -> [[UInt8]]?

    let configuration: Configuration
    private let listener: UnixListener
    private let wakeup = WakeupPipe()
    private let poller: EventPoller
    private let handler: Handler
    private let immediate: ImmediateHandler?
    /// The `VERSION` line each client is greeted with, encoded once.
    private let greeting: [UInt8]
    private let state: Mutex<State>
    /// The `VERSION` object answering a `version` request, without its id: the greeting's members and the owner's
    /// own (e.g. `mqtt`), and its line, encoded when they change rather than for every request.
    private let versionReply: Mutex<(object: JSONValue, line: [UInt8], hasID: Bool)>

    private struct Update {
        var className: String
        var bytes: [UInt8]
    }

    /// A class, not a struct: the table lends it by reference. As a struct, every read of a field through the
    /// table (`state.clients[fd]!.queuedBytes`) copied the whole client, retaining each buffer it holds: a third
    /// of the instructions the socket thread spent on a request.
    private final class Client {
        let fd: Int32
        let peer: Peer
        var framer: LineFramer
        /// nil: not watching; otherwise the classes watched.
        var watching: Set<String>?
        /// The watched classes that have a bit in `State.classBits`, as a mask: what `publish` tests per client.
        var watchMask: UInt64 = 0
        var replies: [[UInt8]] = []
        /// The bytes in `replies`.
        var queuedBytes = 0
        var updates: [Update] = []
        var writing: [UInt8] = []
        var written = 0
        var blockedSince: ContinuousClock.Instant?
        /// Told why it is being closed (or sent all it asked for): nothing more is queued or read; closed once
        /// what waits is sent.
        var closeAfterFlush = false
        /// What the poller watches this client for: input while it is not held back, room to write while output
        /// waits that the socket did not take.
        var watchesReadable = true
        var watchesWritable = false
        /// The next line read and not yet handled, because a limit was reached (the client's requests in flight or
        /// replies waiting, the turn's time, a free handler). The framer holds the lines after it, unframed: at most
        /// one read's worth, since nothing more is read while one waits here.
        var next: LineFramer.Output?
        /// The handlers answering this client's requests, by serial: cancelled when it leaves.
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextSerial = 0
        /// Since when a line has been begun and not ended (nil when none is).
        var lineSince: ContinuousClock.Instant?

        var hasOutput: Bool { written < writing.count || !replies.isEmpty || !updates.isEmpty }
        var hasHeld: Bool { next != nil }

        init(fd: Int32, peer: Peer, framer: LineFramer) {
            self.fd = fd
            self.peer = peer
            self.framer = framer
        }

        enum Offer {
            case notWatching, sent, queued, gone
        }

        /// Hands a published update to this client: sent at once, without a copy or a trip through the event loop,
        /// when nothing waits before it; queued (replacing an older one of its class) when something does; only
        /// what the socket does not take is kept for later.
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
                SocketServer.enqueueUpdate(self, peer.trusted ? update.trusted : update.others)
                return .queued
            }
            switch SocketServer.sendNow(peer.trusted ? bytes.trusted : bytes.others, to: fd) {
            case .sent:
                return .sent
            case .partly(let count):
                writing = peer.trusted ? update.trusted.bytes : update.others.bytes
                written = count
                blockedSince = .now
                return .queued
            case .gone:
                return .gone
            }
        }
    }

    /// A connection refused at the client limit: its write side is shut once the refusal is sent, and it is kept
    /// until its client closes or `refusedLinger` passes, so that the client reads the refusal instead of a reset.
    private struct Refused {
        var fd: Int32
        var deadline: ContinuousClock.Instant
    }

    private struct State {
        var running = true
        var finished = false
        /// Who waits in `stopped()`, resumed once the loop has finished.
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
        var clients = DescriptorTable<Client>()
        /// The clients the loop must see to: output queued, room to write, a handler finished.
        var pending = DescriptorSet()
        /// The clients with output their socket did not take: watched for stalling.
        var blocked = DescriptorSet()
        /// The clients with a line begun and not ended: watched for `partialLineTimeout`.
        var midLine = DescriptorSet()
        var refused: [Refused] = []
        var nextID = 1
        /// The bytes of replies waiting, over all clients.
        var queuedReplyBytes = 0
        /// Requests with the asynchronous handler, over all clients.
        var handlersInFlight = 0
        /// Clients with a request waiting for a handler to be free: seen to when one is.
        var awaitingHandler = DescriptorSet()
        /// Clients whose first line since they sent it was not answered (the pass's time was spent): served
        /// first in the queued pass, in the order they came.
        var fresh = DescriptorQueue()
        /// Clients with more lines held after one was answered (they pipeline): served in the queued pass after
        /// `fresh`, in turn, as far as its time allows.
        var backlog = DescriptorQueue()
        /// Time spent answering in place in the current pass.
        var immediateSpent = Duration.zero
        /// The newest object of each class: (precise, for trusted peers; as others see it).
        var latest: [String: (trusted: [UInt8], others: [UInt8])] = [:]
        /// A bit for each class published or listed in the snapshot order (at most 64), so that fanning an update
        /// out tests one bit per client instead of hashing the class name into each client's set.
        var classBits: [String: UInt64] = [:]

        func mask(of classes: Set<String>) -> UInt64 {
            classes.reduce(0) { $0 | (classBits[$1] ?? 0) }
        }

        /// The class's bit, given one on its first use while bits remain; nil when all 64 are taken.
        mutating func bit(for className: String) -> UInt64? {
            if let bit = classBits[className] { return bit }
            guard classBits.count < 64 else { return nil }
            let bit = UInt64(1) << UInt64(classBits.count)
            classBits[className] = bit
            clients.updateEach { client in
                if client.watching?.contains(className) == true { client.watchMask |= bit }
            }
            return bit
        }
    }

    /// Throws when the process is out of descriptors for the event loop's epoll instance.
    public init(
        listener: UnixListener, configuration: Configuration = Configuration(), handler: @escaping Handler,
        immediate: ImmediateHandler? = nil
    ) throws(SystemCallError) {
        self.listener = listener
        self.configuration = configuration
        self.handler = handler
        self.immediate = immediate
        greeting = Self.line(ProtocolMessage.version(release: configuration.release))
        versionReply = Mutex((ProtocolMessage.version(release: configuration.release), greeting, false))
        self.poller = try EventPoller(maximumCount: configuration.maximumClients + configuration.maximumRefused + 2)
        var state = State()
        for className in configuration.snapshotOrder { _ = state.bit(for: className) }
        self.state = Mutex(state)
        // A backlog smaller than the client limit refuses a burst of clients the server would serve.
        if let backlog = listener.backlog, Int(backlog) < configuration.maximumClients {
            try syscall("listen") { listen(listener.fd, Int32(clamping: configuration.maximumClients)) }
        }
    }

    /// Starts the event loop on its own thread.
    public func start() {
        Self.raiseDescriptorLimit(atLeast: configuration.maximumClients + configuration.maximumRefused + 256)
        DedicatedThread.start(name: "breeze.socket") { [self] in self.run() }
    }

    /// Tells every client the daemon is stopping, closes them, and ends the loop.
    public func stop() {
        state.withLock { $0.running = false }
        wakeup.wake()
    }

    public var clientCount: Int {
        state.withLock { $0.clients.count }
    }

    /// Sets the members added to `VERSION` when a client asks for it (not in the greeting, which is encoded once).
    public func setVersionMembers(_ members: [(String, JSONValue)]) {
        let object = ProtocolMessage.version(release: configuration.release, extra: members)
        let reply = (object, Self.line(object), members.contains { $0.0 == "id" })
        versionReply.withLock { $0 = reply }
    }

    /// Bytes of replies waiting to be sent, over all clients.
    public var queuedReplyBytes: Int {
        state.withLock { $0.queuedReplyBytes }
    }

    /// Requests being handled, over all clients.
    public var requestsInFlight: Int {
        state.withLock { state in
            var count = 0
            state.clients.updateEach { count += $0.tasks.count }
            return count
        }
    }

    /// Publishes an update to every client watching its class. `others` is the version for untrusted peers
    /// (coordinates rounded); nil sends `message` to all.
    public func publish(_ message: JSONValue, others: JSONValue? = nil) {
        guard let className = message["class"]?.stringValue else { return }
        let trusted = Self.line(message)
        let untrusted = others.map(Self.line) ?? trusted
        var queued: [Int32] = []
        state.withLock { state in
            state.latest[className] = (trusted, untrusted)
            let bit = state.bit(for: className)
            let update = (trusted: Update(className: className, bytes: trusted),
                          others: Update(className: className, bytes: untrusted))
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
            state.pending.formUnion(queued)
        }
        if !queued.isEmpty { wakeup.wake() }
    }

    /// Sends a handler's replies to one client and forgets the handler.
    private func deliver(_ messages: [JSONValue], to fd: Int32, peerID: Int, serial: Int) {
        let lines = messages.map(Self.line)
        let wake = state.withLock { state -> Bool in
            state.handlersInFlight -= 1
            // A handler is free: the clients waiting for one are seen to.
            var wake = !state.awaitingHandler.isEmpty
            state.pending.formUnion(state.awaitingHandler)
            state.awaitingHandler.removeAll()
            guard state.clients[fd]?.peer.id == peerID else { return wake }  // gone, and the descriptor reused
            state.clients[fd]!.tasks[serial] = nil
            for line in lines { enqueueReply(&state, fd, line) }
            state.pending.insert(fd)  // also to take up lines held while the handler ran
            wake = true
            return wake
        }
        if wake { wakeup.wake() }
    }

    static func line(_ message: JSONValue) -> [UInt8] {
        message.encodedLine()
    }

    private enum SendOutcome {
        case sent
        case partly(Int)
        case gone
    }

    /// One non-blocking send of a whole line.
    private static func sendNow(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> SendOutcome {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .sent }
        let count = retryingOnInterrupt { send(fd, base, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        if count == bytes.count { return .sent }
        if count >= 0 { return .partly(count) }
        if errno == EAGAIN || errno == EWOULDBLOCK { return .partly(0) }
        return .gone
    }

    private static func enqueueUpdate(_ client: Client, _ update: Update) {
        if let index = client.updates.firstIndex(where: { $0.className == update.className }) {
            client.updates[index] = update  // newest replaces the older one still queued
        } else {
            client.updates.append(update)
        }
    }

    /// Queues a reply for the client at `fd` and marks it for the next flush. At `maximumQueuedReplies` the client
    /// is told once, and nothing more is queued for it.
    private func enqueueReply(_ state: inout State, _ fd: Int32, _ bytes: [UInt8]) {
        guard state.clients.contains(fd), !state.clients[fd]!.closeAfterFlush else { return }
        state.pending.insert(fd)
        var line = bytes
        if state.clients[fd]!.replies.count >= configuration.maximumQueuedReplies {
            line = Self.line(ProtocolMessage.error(ProtocolError(
                .slowClient, "more than \(configuration.maximumQueuedReplies) replies waiting; closing")))
            state.clients[fd]!.closeAfterFlush = true
        }
        state.clients[fd]!.replies.append(line)
        state.clients[fd]!.queuedBytes += line.count
        state.queuedReplyBytes += line.count
    }

    /// Whether the server takes up another of the client's lines now: not while its replies wait past their high
    /// water, nor, while all clients' waiting replies are past the server's bound, while any of its own wait.
    private func canTakeLine(_ client: Client, _ state: State) -> Bool {
        !client.closeAfterFlush && client.replies.count < configuration.replyHighWater
            && client.queuedBytes < configuration.replyHighWaterBytes
            && (client.queuedBytes == 0 || state.queuedReplyBytes < configuration.maximumQueuedReplyBytes)
    }

    // MARK: - The event loop

    private func run() {
        // 4 KiB a read: a client held back at its limits gets only this much framed before it waits (a client that
        // floods requests costs no more than that), while a line or a few fit in one read for everyone else. One
        // buffer for the loop, neither allocated nor zeroed per read.
        let received = UnsafeMutableRawBufferPointer.allocate(byteCount: 4_096, alignment: 16)
        defer { received.deallocate() }
        poller.add(wakeup.readEnd)
        poller.add(listener.fd)
        var timed = false
        // Deadlines are seconds long: looking for overdue clients (a walk over every stalled and mid-line one) a few
        // times a second is soon enough, where every turn cost a sixth of the loop's time under a busy crowd.
        var nextOverdueCheck = ContinuousClock.now
        let firstLinesTime = Duration.nanoseconds(Int64(configuration.immediateWorkPerTurn * 1e9))
        // After a burst of work, once the socket has been quiet for `trimAfterIdle`: glibc keeps what was freed (in
        // every thread's arena, the request handlers' too) for reuse; it goes back to the system then. One wake-up
        // after activity; none while nothing happens.
        var trimDue: ContinuousClock.Instant?
        var lastTrim = ContinuousClock.now
        let trimDelay = Duration.milliseconds(Int(configuration.trimAfterIdle * 1000))
        while state.withLock({ $0.running }) {
            // While a deadline is pending (a stall, a line begun, a refusal), wake at least four times a second;
            // with lines queued for the next turn, look at the sockets and come straight back.
            let busy = state.withLock { !$0.fresh.isEmpty || !$0.backlog.isEmpty }
            var timeout: Int32 = busy ? 0 : timed ? 250 : -1
            if let trimDue, !busy {
                // Whole milliseconds, rounded up: rounded down, the last one would be waited for in 0 ms turns.
                let (seconds, attoseconds) = ContinuousClock.now.duration(to: trimDue).components
                let left = max(0, seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
                timeout = timeout < 0 ? Int32(clamping: left) : min(timeout, Int32(clamping: left))
            }
            // Every descriptor that can be ready at once, so that the turn orders them all (trusted peers first).
            let events = poller.wait(timeoutMilliseconds: timeout)
            let now = ContinuousClock.now
            if events.isEmpty, !busy, let due = trimDue, now >= due {
                configuration.onIdle?()
                _ = malloc_trim(0)
                trimDue = nil
                lastTrim = now
            } else if !events.isEmpty || busy {
                trimDue = now + trimDelay
                // Never quiet (a client polling all the time): trim now and then all the same.
                if now - lastTrim > trimDelay * 5 {
                    configuration.onIdle?()
                    _ = malloc_trim(0)
                    lastTrim = now
                }
            }
            state.withLock { $0.immediateSpent = .zero }
            for event in inTurnOrder(events) {
                if event.fd == wakeup.readEnd {
                    wakeup.drain()
                } else if event.fd == listener.fd {
                    acceptClients(reading: received)
                } else if closeRefused(event.fd) {
                    continue
                } else {
                    let (paused, passedOver) = state.withLock { state -> (Bool, Bool) in
                        let seen = state.clients.read(event.fd) { (paused: !$0.watchesReadable, trusted: $0.peer.trusted) }
                        guard let seen else { return (false, false) }
                        return (seen.paused, !seen.trusted && state.immediateSpent >= firstLinesTime)
                    }
                    if paused && event.closed {
                        remove(event.fd)  // it left while held back: nobody is there to answer
                        continue
                    }
                    // Past the pass's time, an untrusted client is read in a later turn: what it sent waits in its
                    // socket, and the kernel reports it again, ahead of clients that became ready after it.
                    if (event.readable || event.closed) && !passedOver { readFrom(event.fd, into: received) }
                    if event.writable { state.withLock { _ = $0.pending.insert(event.fd) } }
                }
            }
            servePending()
            if now >= nextOverdueCheck {
                timed = closeOverdue()
                nextOverdueCheck = now + .milliseconds(50)
            }
            serveQueued()
        }
        shutDown()
    }

    /// The turn's events in the order they are seen to: the wake-up pipe and the listener, then trusted peers,
    /// then everyone else, each group in the kernel's order. A crowd of untrusted clients then delays
    /// `breezectl` run by root or breezed's group by no more than the first pass's time.
    private func inTurnOrder(_ events: [EventPoller.Ready]) -> [EventPoller.Ready] {
        guard events.count > 1 else { return events }
        let first = state.withLock { state in
            events.map { event in state.clients.read(event.fd) { $0.peer.trusted } ?? true }
        }
        return events.indices.filter { first[$0] }.map { events[$0] }
            + events.indices.filter { !first[$0] }.map { events[$0] }
    }

    private func acceptClients(reading buffer: UnsafeMutableRawBufferPointer) {
        while true {
            let fd = retryingOnInterrupt { accept(listener.fd, nil, nil) }
            if fd < 0 {
                return  // EAGAIN: no more waiting; EMFILE and the like: try again on the next wake-up
            }
            // accept4 is not imported without _GNU_SOURCE: set the flags after accepting.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            // Who the peer is, outside the lock: this reads the kernel's answer and perhaps /proc.
            let credentials = PeerCredentials.of(fd)
            let trusted = credentials.map(configuration.trust.trusts) ?? false
            let admitted = state.withLock { state -> Bool in
                let reserve = trusted ? 0 : min(max(0, configuration.reservedForTrusted), configuration.maximumClients / 2)
                let limit = configuration.maximumClients - reserve
                guard state.clients.count < limit else { return false }
                let peer = Peer(id: state.nextID, credentials: credentials, trusted: trusted)
                state.nextID += 1
                let client = Client(fd: fd, peer: peer, framer: LineFramer(maximumLength: configuration.maximumLineLength))
                client.replies.append(greeting)
                client.queuedBytes = greeting.count
                state.queuedReplyBytes += greeting.count
                state.clients[fd] = client
                state.pending.insert(fd)
                return true
            }
            if admitted {
                poller.add(fd)
                // `breezectl` sends its request as soon as it has connected: a trusted peer's is answered now, not a
                // turn later behind everyone whose lines are ready.
                if trusted { readFrom(fd, into: buffer) }
            } else {
                refuse(fd)
            }
        }
    }

    /// Tells a client past the limit why, shuts the write side (it reads the refusal, then end of file), and
    /// keeps the descriptor until the client closes or `refusedLinger` passes: closed at once, a client that had
    /// written its request would read a reset instead.
    private func refuse(_ fd: Int32) {
        let line = Self.line(ProtocolMessage.error(ProtocolError(
            .tooManyClients, "breezed serves at most \(configuration.maximumClients) clients; try again later")))
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .milliseconds(Int(configuration.refusedLinger * 1000))
        let evicted = state.withLock { state -> Int32? in
            state.refused.append(Refused(fd: fd, deadline: deadline))
            guard state.refused.count > max(0, configuration.maximumRefused) else { return nil }
            return state.refused.removeFirst().fd
        }
        if let evicted { close(evicted) }
        if evicted != fd { poller.add(fd, readable: false) }  // reported when its client hangs up
    }

    /// Closes `fd` if it is a refused connection (its client hung up); false for any other descriptor.
    private func closeRefused(_ fd: Int32) -> Bool {
        let found = state.withLock { state -> Bool in
            guard let index = state.refused.firstIndex(where: { $0.fd == fd }) else { return false }
            state.refused.remove(at: index)
            return true
        }
        if found { close(fd) }
        return found
    }

    /// Reads what the client sent into `buffer`, unless it is held back, and takes up its lines as far as its
    /// limits allow.
    private func readFrom(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) {
        while true {
            let count = retryingOnInterrupt { recv(fd, buffer.baseAddress, buffer.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if count <= 0 {
                remove(fd)
                return
            }
            let reading = state.withLock { state -> Bool in
                guard state.clients.contains(fd) else { return false }
                state.clients[fd]!.framer.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                if state.clients[fd]!.framer.isInsideLine {
                    if state.clients[fd]!.lineSince == nil { state.clients[fd]!.lineSince = .now }
                    state.midLine.insert(fd)
                } else {
                    state.clients[fd]!.lineSince = nil
                    state.midLine.remove(fd)
                }
                return true
            }
            guard reading else { return }
            queue(fd, takeUpLines(fd, visit: .onReadiness))
            // Held back (a limit reached, or lines queued): the rest stays in the socket, whose buffer then holds
            // the client back.
            guard state.withLock({ $0.clients.read(fd) { $0.hasHeld } == false }) else {
                updateInterest(fd)
                return
            }
            if count < buffer.count { return }
        }
    }

    /// How far a visit to a client goes.
    private enum Visit {
        /// The client just sent something: its first line is answered (a trusted peer's even when the pass's time
        /// is spent), the rest queued.
        case onReadiness
        /// Its turn in the queue: lines are answered while the pass's time and the client's limits allow.
        case queued
    }

    /// What a visit left of a client's lines.
    private enum LinesLeft {
        /// None complete: it is read again when it sends more.
        case none
        /// One waits for the client's own limits (replies unread, requests in flight, a free handler): it is seen
        /// to when they allow.
        case waitingForLimits
        /// One waits, and none was answered: the pass's time was spent.
        case unanswered
        /// More wait after the ones answered.
        case more
    }

    /// Handles the client's held lines as far as the visit and its limits allow.
    private func takeUpLines(_ fd: Int32, visit: Visit) -> LinesLeft {
        var answered = 0
        while true {
            let next = state.withLock { state -> (LineFramer.Output, Peer)?? in
                guard state.clients.contains(fd) else { return .some(nil) }
                if state.clients[fd]!.next == nil { state.clients[fd]!.next = state.clients[fd]!.framer.next() }
                let held = state.clients.read(fd) { client in
                    (next: client.next, peer: client.peer, takes: canTakeLine(client, state))
                }
                guard let held, let next = held.next else { return .some(nil) }
                guard held.takes else { return nil }
                return (next, held.peer)
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
    private func queue(_ fd: Int32, _ left: LinesLeft) {
        switch left {
        case .none, .waitingForLimits: return
        case .unanswered: state.withLock { $0.fresh.append(fd) }
        case .more: state.withLock { $0.backlog.append(fd) }
        }
    }

    /// The queued pass, once a turn: first lines left over, then pipelined lines, a client at a time in the order
    /// they were queued, while the pass's time lasts. A client with more left goes to the back of the backlog.
    private func serveQueued() {
        let limit = Duration.nanoseconds(Int64(configuration.immediateWorkPerTurn * 1e9))
        var visits = state.withLock { state in
            state.immediateSpent = .zero
            return state.fresh.count + state.backlog.count
        }
        var visited: [Int32] = []
        while visits > 0 {
            visits -= 1
            let fd = state.withLock { state -> Int32? in
                guard state.immediateSpent < limit else { return nil }
                return state.fresh.popFirst() ?? state.backlog.popFirst()
            }
            guard let fd else { break }
            visited.append(fd)
            queue(fd, takeUpLines(fd, visit: .queued))
        }
        guard !visited.isEmpty else { return }
        servePending()
        visited.forEach(updateInterest)
    }

    /// Marks the client's next held line as taken up. Under the lock.
    private static func consumeLine(_ state: inout State, _ fd: Int32) {
        guard state.clients.contains(fd) else { return }
        state.clients[fd]!.next = nil
    }

    /// What became of a held line.
    private enum Taken {
        /// Answered, or handed to the handler: it is no longer held.
        case answered
        /// Left held: the pass's time for answering in place is spent.
        case outOfTime
        /// Left held: the client's requests in flight, or all handlers, are at their limit.
        case waitsForLimits
    }

    /// True when `text` is whitespace only. A line that starts with an ASCII byte other than whitespace (a
    /// request's "{") is not, and is told without looking up a character's properties.
    static func isBlank(_ text: String) -> Bool {
        if let first = text.utf8.first, first < 0x80, first != 0x20, !(0x09...0x0D).contains(first) { return false }
        return text.allSatisfy(\.isWhitespace)
    }

    /// Takes up the client's next held line: answers it, or hands it to the handler. `budgeted`: only while the
    /// pass's time for answering in place lasts; what the line costs counts against it either way.
    private func take(_ output: LineFramer.Output, from fd: Int32, peer: Peer, budgeted: Bool) -> Taken {
        let limit = Duration.nanoseconds(Int64(configuration.immediateWorkPerTurn * 1e9))
        let started = ContinuousClock.now
        if budgeted, state.withLock({ $0.immediateSpent >= limit }) { return .outOfTime }
        defer {
            let took = started.duration(to: .now)
            state.withLock { $0.immediateSpent += took }
        }
        let request: ProtocolRequest
        do throws(ProtocolError) {
            switch output {
            case .tooLong:
                throw ProtocolError(.lineTooLong, "a line is at most \(configuration.maximumLineLength) bytes; it was dropped")
            case .invalidText:
                throw ProtocolError(.invalidText, "a line must be UTF-8 text")
            case .line(let text):
                if Self.isBlank(text) {
                    state.withLock { Self.consumeLine(&$0, fd) }
                    return .answered
                }
                request = try ProtocolRequest.parse(text)
            }
        } catch {
            answer(fd, [ProtocolMessage.error(error)])
            return .answered
        }
        if request.changesState && !peer.trusted {
            answer(fd, [ProtocolMessage.error(ProtocolError(
                .notPermitted, "\(request.command.rawValue) changes breezed's state: run it as root, as breezed's "
                    + "user, or as a member of its group"), id: request.id)])
            return .answered
        }
        if case .server(let command) = request.command.route {
            state.withLock { Self.consumeLine(&$0, fd) }
            answer(command, request, fd: fd, peer: peer)
            return .answered
        }
        // Encoding the answer counts against the pass's time too: for a search it costs as much as finding the
        // places.
        if let immediate, let lines = immediate(request, peer) {
            answer(fd, lines: lines)
            return .answered
        }
        let handler = handler
        // Started and recorded under the lock, so that its delivery (which takes the lock) finds it recorded.
        return state.withLock { state -> Taken in
            guard let client = state.clients[fd] else { return .answered }
            // At the client's own limit it is seen to again when one of its handlers delivers.
            guard client.tasks.count < configuration.maximumRequestsInFlight else { return .waitsForLimits }
            guard state.handlersInFlight < configuration.maximumHandlersInFlight else {
                state.awaitingHandler.insert(fd)
                return .waitsForLimits
            }
            Self.consumeLine(&state, fd)
            let serial = client.nextSerial
            state.clients[fd]!.nextSerial += 1
            state.handlersInFlight += 1
            state.clients[fd]!.tasks[serial] = Task {
                let replies = await handler(request, peer)
                self.deliver(
                    replies.map { ProtocolMessage.reply($0, id: request.id) }, to: fd, peerID: peer.id, serial: serial)
            }
            return .answered
        }
    }

    /// Sets what the poller watches the client for: input only while it is not held back, room to write only
    /// while output waits. Outside the lock: `epoll_ctl` is a system call.
    private func updateInterest(_ fd: Int32) {
        let change = state.withLock { state -> (readable: Bool, writable: Bool)? in
            let seen = state.clients.read(fd) { client in
                (readable: !client.hasHeld && canTakeLine(client, state), writable: client.hasOutput,
                 watching: (readable: client.watchesReadable, writable: client.watchesWritable),
                 midLine: client.lineSince != nil)
            }
            guard let seen else { return nil }
            let (readable, writable) = (seen.readable, seen.writable)
            guard readable != seen.watching.readable || writable != seen.watching.writable else { return nil }
            if readable && !seen.watching.readable && seen.midLine {
                state.clients[fd]!.lineSince = .now  // held back is not idle: its line's time starts again
            }
            state.clients[fd]!.watchesReadable = readable
            state.clients[fd]!.watchesWritable = writable
            return (readable, writable)
        }
        if let change { poller.change(fd, readable: change.readable, writable: change.writable) }
    }

    /// Answers the requests the server answers itself, from what it holds: version, status, watch, unwatch.
    private func answer(_ command: RequestRoute.ServerCommand, _ request: ProtocolRequest, fd: Int32, peer: Peer) {
        switch command {
        case .version:
            let version = versionReply.withLock { $0 }
            // An "id" among the owner's members gives way to the request's, as `ProtocolMessage.reply` has it.
            let line = version.hasID && request.id != nil
                ? Self.line(ProtocolMessage.reply(version.object, id: request.id)) : ProtocolMessage.replyLine(version.line, id: request.id)
            state.withLock { state in
                guard state.clients.contains(fd) else { return }
                enqueueReply(&state, fd, line)
            }
        case .status:
            state.withLock { state in
                guard state.clients.contains(fd) else { return }
                for className in configuration.snapshotOrder {
                    guard let latest = state.latest[className] else { continue }
                    let bytes = peer.trusted ? latest.trusted : latest.others
                    enqueueReply(&state, fd, ProtocolMessage.replyLine(bytes, id: request.id))
                }
            }
        case .watch:
            let classes: Set<String>
            do throws(ProtocolError) {
                classes = try request.classes("classes", known: configuration.watchableClasses)
                    ?? Set(configuration.snapshotOrder)
            } catch {
                reply(fd, [ProtocolMessage.error(error, id: request.id)])
                return
            }
            state.withLock { state in
                guard state.clients.contains(fd) else { return }
                state.clients[fd]!.watching = classes
                state.clients[fd]!.watchMask = state.mask(of: classes)
                let ack = JSONValue.object([
                    ("class", .string("WATCH")), ("enable", .bool(true)),
                    ("classes", .array(configuration.watchableClasses.filter(classes.contains).map(JSONValue.string))),
                ])
                enqueueReply(&state, fd, Self.line(ProtocolMessage.reply(ack, id: request.id)))
                for className in configuration.snapshotOrder where classes.contains(className) {
                    guard let latest = state.latest[className] else { continue }
                    Self.enqueueUpdate(
                        state.clients[fd]!,
                        Update(className: className, bytes: peer.trusted ? latest.trusted : latest.others))
                }
            }
        case .unwatch:
            state.withLock { state in
                guard state.clients.contains(fd) else { return }
                state.clients[fd]!.watching = nil
                state.clients[fd]!.watchMask = 0
                state.clients[fd]!.updates.removeAll()
                let ack = JSONValue.object([("class", .string("WATCH")), ("enable", .bool(false))])
                enqueueReply(&state, fd, Self.line(ProtocolMessage.reply(ack, id: request.id)))
            }
        }
    }

    private func reply(_ fd: Int32, _ messages: [JSONValue]) {
        state.withLock { state in
            guard state.clients.contains(fd) else { return }
            for message in messages { enqueueReply(&state, fd, Self.line(message)) }
        }
    }

    /// Takes up the client's next held line and queues the answer to it.
    private func answer(_ fd: Int32, _ messages: [JSONValue]) {
        answer(fd, lines: messages.map(Self.line))  // encoded outside the lock, which `publish` waits for
    }

    /// Takes up the client's next held line and queues the answer to it, encoded.
    private func answer(_ fd: Int32, lines: [[UInt8]]) {
        state.withLock { state in
            Self.consumeLine(&state, fd)
            guard state.clients.contains(fd) else { return }
            for line in lines { enqueueReply(&state, fd, line) }
        }
    }

    /// Sees to the clients marked pending: flushes their output, queues for the queued pass those holding a line
    /// they may now take up (their replies were read, a handler finished), and sets what each is watched for. A
    /// client whose socket failed, or that was to be closed once flushed and is, goes.
    private func servePending() {
        var gone: [Int32] = []
        var served: [Int32] = []
        state.withLock { state in
            // Taken whole: what is marked while these are seen to waits for the next turn.
            var pending = DescriptorSet()
            swap(&pending, &state.pending)
            defer {
                // Its room is kept for the next turn.
                pending.removeAll()
                if state.pending.isEmpty { state.pending = pending }
            }
            for fd in pending {
                guard state.clients.contains(fd) else { continue }
                let queued = state.clients[fd]!.queuedBytes
                let flushed = Self.flush(state.clients[fd]!)
                state.queuedReplyBytes -= queued - state.clients[fd]!.queuedBytes
                guard flushed else {
                    gone.append(fd)
                    continue
                }
                if state.clients[fd]!.hasOutput {
                    state.blocked.insert(fd)
                } else {
                    state.blocked.remove(fd)
                }
                if let client = state.clients[fd], client.hasHeld, canTakeLine(client, state), !state.fresh.contains(fd) {
                    state.backlog.append(fd)
                }
                served.append(fd)
            }
        }
        gone.forEach(remove)
        served.forEach(updateInterest)
    }

    /// Writes what the socket takes. Replies go before updates. Returns false when the client must be closed.
    private static func flush(_ client: Client) -> Bool {
        while true {
            if client.written == client.writing.count {
                client.writing = []
                client.written = 0
                // An emptied queue is replaced by the shared empty array, not kept with its buffer: an idle
                // client then holds no queue memory, and the fan-out's "anything waiting?" test reads no buffer
                // of its own (one cache miss per client, a fifth of publishing to 1,000 of them).
                if !client.replies.isEmpty {
                    client.writing = client.replies.removeFirst()
                    client.queuedBytes -= client.writing.count
                    if client.replies.isEmpty { client.replies = [] }
                } else if !client.updates.isEmpty {
                    client.writing = client.updates.removeFirst().bytes
                    if client.updates.isEmpty { client.updates = [] }
                } else {
                    client.blockedSince = nil
                    return !client.closeAfterFlush
                }
            }
            let count = retryingOnInterrupt {
                client.writing.withUnsafeBytes { bytes in
                    send(client.fd, bytes.baseAddress! + client.written, bytes.count - client.written,
                         Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
            }
            if count > 0 {
                client.written += count
                client.blockedSince = nil
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if client.blockedSince == nil { client.blockedSince = .now }
                return true
            }
            return false  // EPIPE, ECONNRESET: the client is gone
        }
    }

    /// Closes what is overdue: clients stalled with output waiting, clients holding a line begun too long ago,
    /// refused connections kept long enough. Returns whether any deadline is still pending.
    private func closeOverdue() -> Bool {
        let stallLimit = Duration.milliseconds(Int(configuration.stallTimeout * 1000))
        let lineLimit = Duration.milliseconds(Int(configuration.partialLineTimeout * 1000))
        let now = ContinuousClock.now
        let (stalled, expired, pendingDeadlines) = state.withLock { state -> ([Int32], [Int32], Bool) in
            let stalled = state.blocked.filter { fd in
                state.clients[fd]?.blockedSince.map { $0.duration(to: now) > stallLimit } ?? false
            }
            let overdueLines = state.midLine.filter { fd in
                guard let client = state.clients[fd] else { return true }
                return client.watchesReadable && !client.closeAfterFlush
                    && (client.lineSince.map { $0.duration(to: now) > lineLimit } ?? false)
            }
            for fd in overdueLines {
                state.midLine.remove(fd)
                guard state.clients.contains(fd) else { continue }
                enqueueReply(&state, fd, Self.line(ProtocolMessage.error(ProtocolError(
                    .slowClient, "a line was begun \(Int(configuration.partialLineTimeout)) s ago and not ended; closing"))))
                state.clients[fd]!.closeAfterFlush = true
            }
            let expired = state.refused.filter { $0.deadline <= now }.map(\.fd)
            state.refused.removeAll { $0.deadline <= now }
            return (Array(stalled), expired, !state.blocked.isEmpty || !state.midLine.isEmpty || !state.refused.isEmpty)
        }
        for fd in stalled {
            let line = Self.line(ProtocolMessage.error(ProtocolError(
                .slowClient, "read nothing for \(Int(configuration.stallTimeout)) s while updates waited; closing")))
            // Best effort: the socket is full, so this goes out only if the client finally reads.
            _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            remove(fd)
        }
        expired.forEach { close($0) }
        // Stalled ones leave room; overdue lines' errors wait to be sent: see to them now, not at the next wake-up.
        if !stalled.isEmpty || !expired.isEmpty || state.withLock({ !$0.pending.isEmpty }) { servePending() }
        return pendingDeadlines
    }

    /// Forgets a client: cancels its handlers, frees its queues, closes its descriptor. Socket thread only.
    private func remove(_ fd: Int32) {
        let removed = state.withLock { state -> [Task<Void, Never>]? in
            state.pending.remove(fd)
            state.blocked.remove(fd)
            state.midLine.remove(fd)
            state.fresh.remove(fd)
            state.backlog.remove(fd)
            state.awaitingHandler.remove(fd)
            guard let removed = state.clients.removeValue(for: fd) else { return nil }
            state.queuedReplyBytes -= removed.queuedBytes
            return Array(removed.tasks.values)
        }
        guard let removed else { return }
        for task in removed { task.cancel() }
        close(fd)
    }

    /// Sends what each client still has waiting (as far as its socket takes it without waiting), then the goodbye
    /// unless a line is left half-written, and closes it.
    private func shutDown() {
        let line = Self.line(ProtocolMessage.error(ProtocolError(.shuttingDown, "breezed is stopping")))
        // Under the lock: the clients live in the state. Nothing here waits (the sends do not block), and the loop
        // is over, so nobody else waits for it long.
        state.withLock { state in
            for client in state.clients.values {
                for task in client.tasks.values { task.cancel() }
                _ = Self.flush(client)
                if client.written == client.writing.count {
                    _ = line.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                }
                close(client.fd)
            }
            state.refused.forEach { close($0.fd) }
            state.clients.removeAll()
            state.refused.removeAll()
            state.pending.removeAll()
            state.blocked.removeAll()
            state.midLine.removeAll()
            state.fresh.removeAll()
            state.backlog.removeAll()
        }
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// True once `stop()` has told every client and closed it.
    public var hasStopped: Bool {
        state.withLock { $0.finished }
    }

    /// Returns once `stop()` has told every client and closed it (at once if it has), without polling.
    public func stopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                if !state.finished { state.stopWaiters.append(continuation) }
                return state.finished
            }
            if finished { continuation.resume() }
        }
    }

    /// Raises the soft limit on open descriptors to at least `count` (within the hard limit), so the default of
    /// 1,024 clients is reachable under systemd's soft limit of 1,024. Not to the hard limit itself: that can be
    /// a million, and Foundation's `Process` then works through every possible descriptor when it starts a child.
    public static func raiseDescriptorLimit(atLeast count: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = min(limit.rlim_max, rlim_t(max(0, count)))
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = wanted
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
