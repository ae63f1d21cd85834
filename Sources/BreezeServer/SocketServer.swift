public import BreezeCore
public import BreezeProtocol
import BreezeSystem
import CEpoll
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's socket: accepts clients, answers requests, and fans updates out to subscribers.
///
/// One thread runs the event loop (epoll over the listener, the clients and a wake-up pipe), in rooms of their own:
/// - admission (`SocketServer+Admission`): accepting, the peer's credentials and trust, the client limit;
/// - reading (`SocketServer+Reading`): framing each client's lines and taking them up as far as its bounds and the
///   turn's time allow;
/// - requests (`SocketServer+Requests`): the one path of a request, from its line to its answer: the server's own
///   commands, then the owner's `Router`, answered now or by a task;
/// - broadcast (`SocketServer+Broadcast`): fanning each update out, coalesced per class;
/// - output (`SocketServer+Output`): each client's queue (`ClientConnection`), backpressure, deadlines, closing.
///
/// Each update is encoded once and its bytes shared by every subscriber. A client's queue holds at most one pending
/// update per class (the newest replaces an older one not yet sent) and a bounded number of replies, so a slow client
/// costs a bounded amount of memory, never receives stale state after fresh, and never holds others back; one that
/// accepts no bytes for `stallTimeout` while it has some waiting is closed with an `ERROR` saying why.
///
/// The lock rule: under `state`'s lock only memory work and sends with `MSG_DONTWAIT` on non-blocking sockets happen
/// (such a send copies into the socket's buffer or returns `EAGAIN`; it never waits for the peer), because `publish`
/// takes the lock from the daemon's actor. Reading credentials, `epoll_ctl`, `close` and `malloc_trim` run outside
/// it. Only the socket thread closes a client's descriptor, so one it watches is never reused under it.
public final class SocketServer: Sendable {
    /// A connected client, as request handlers see it.
    public struct Peer: Sendable, Hashable {
        public var id: Int
        public var credentials: PeerCredentials?
        public var trusted: Bool
    }

    /// How the owner answers a request the server does not answer itself (everything but status, watch, unwatch
    /// and version): either way, the lines to send, encoded, each ending in a newline and carrying the request's id.
    public enum Answer: Sendable {
        /// Answered now, on the socket thread, from memory and without waiting.
        case now([[UInt8]])
        /// Answered by work that waits (the web, a change saved to disk), run as a task.
        case later(@Sendable () async -> [[UInt8]])
    }

    /// The owner's answer to each request it takes: one function per command, whichever way it answers. Called on
    /// the socket thread, so it decides at once; only `.later` work waits.
    public typealias Router = @Sendable (ProtocolRequest, Peer) -> Answer

    let configuration: Configuration
    let listener: UnixListener
    let wakeup = WakeupPipe()
    let poller: EventPoller
    let route: Router
    /// The `VERSION` line each client is greeted with, encoded once.
    let greeting: [UInt8]
    let state: Mutex<ServerState>
    /// The `VERSION` object answering a `version` request, without its id: the greeting's members and the owner's own
    /// (e.g. `mqtt`), and its line, encoded when they change rather than for every request.
    let versionReply: Mutex<(object: JSONValue, line: [UInt8], hasID: Bool)>

    /// Throws when the process is out of descriptors for the event loop's epoll instance.
    public init(
        listener: UnixListener, configuration: Configuration = Configuration(), route: @escaping Router
    ) throws(SystemCallError) {
        self.listener = listener
        self.configuration = configuration
        self.route = route
        greeting = Self.line(ProtocolMessage.version(release: configuration.release))
        versionReply = Mutex((ProtocolMessage.version(release: configuration.release), greeting, false))
        self.poller = try EventPoller(maximumCount: configuration.maximumClients + configuration.maximumRefused + 2)
        var state = ServerState()
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

    static func line(_ message: JSONValue) -> [UInt8] {
        message.encodedLine()
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
        var trimming = IdleTrim(delay: .milliseconds(Int(configuration.trimAfterIdle * 1000)))
        while state.withLock({ $0.running }) {
            // While a deadline is pending (a stall, a line begun, a refusal), wake at least four times a second;
            // with lines queued for the next turn, look at the sockets and come straight back.
            let busy = state.withLock { !$0.schedule.fresh.isEmpty || !$0.schedule.backlog.isEmpty }
            var timeout: Int32 = busy ? 0 : timed ? 250 : -1
            if !busy, let left = trimming.millisecondsLeft() {
                timeout = timeout < 0 ? left : min(timeout, left)
            }
            // Every descriptor that can be ready at once, so that the turn orders them all (trusted peers first).
            let events = poller.wait(timeoutMilliseconds: timeout)
            let now = ContinuousClock.now
            if trimming.isDue(afterTurnWith: events.count, busy: busy, at: now) {
                configuration.onIdle?()
                _ = malloc_trim(0)
            }
            state.withLock { $0.schedule.immediateSpent = .zero }
            for event in inTurnOrder(events) {
                if event.fd == wakeup.readEnd {
                    wakeup.drain()
                } else if event.fd == listener.fd {
                    acceptClients(reading: received)
                } else if closeRefused(event.fd) {
                    continue
                } else {
                    let (paused, passedOver) = state.withLock { state -> (Bool, Bool) in
                        let seen = state.clients.read(event.fd) {
                            (paused: !$0.watchesReadable, trusted: $0.peer.trusted)
                        }
                        guard let seen else { return (false, false) }
                        return (seen.paused, !seen.trusted && state.schedule.immediateSpent >= firstLinesTime)
                    }
                    if paused && event.closed {
                        remove(event.fd)  // it left while held back: nobody is there to answer
                        continue
                    }
                    // Past the pass's time, an untrusted client is read in a later turn: what it sent waits in its
                    // socket, and the kernel reports it again, ahead of clients that became ready after it.
                    if (event.readable || event.closed) && !passedOver { readFrom(event.fd, into: received) }
                    if event.writable { state.withLock { _ = $0.schedule.pending.insert(event.fd) } }
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

    /// The turn's events in the order they are seen to: the wake-up pipe and the listener, then trusted peers, then
    /// everyone else, each group in the kernel's order. A crowd of untrusted clients then delays `breezectl` run by
    /// root or breezed's group by no more than the first pass's time.
    private func inTurnOrder(_ events: [EventPoller.Ready]) -> [EventPoller.Ready] {
        guard events.count > 1 else { return events }
        let first = state.withLock { state in
            events.map { event in state.clients.read(event.fd) { $0.peer.trusted } ?? true }
        }
        return events.indices.filter { first[$0] }.map { events[$0] }
            + events.indices.filter { !first[$0] }.map { events[$0] }
    }
}

/// When the socket thread gives freed memory back: glibc keeps what was freed (in every thread's arena, the request
/// handlers' too) for reuse; after a burst of work, once the socket has been quiet for `delay`, it goes back to the
/// system. One wake-up after activity, none while nothing happens; a socket never quiet (a client polling all the
/// time) is trimmed every five delays all the same.
struct IdleTrim {
    let delay: Duration
    private var due: ContinuousClock.Instant?
    private var last = ContinuousClock.now

    init(delay: Duration) {
        self.delay = delay
    }

    /// Whole milliseconds until the trim is due, rounded up (rounded down, the last one would be waited for in 0 ms
    /// turns); nil when none is.
    func millisecondsLeft() -> Int32? {
        guard let due else { return nil }
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: due).components
        return Int32(clamping: max(0, seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }

    /// Whether to trim now, after a turn that saw `events` (and was `busy` with queued lines).
    mutating func isDue(afterTurnWith events: Int, busy: Bool, at now: ContinuousClock.Instant) -> Bool {
        if events == 0, !busy, let due, now >= due {
            self.due = nil
            last = now
            return true
        }
        guard events > 0 || busy else { return false }
        due = now + delay
        guard now - last > delay * 5 else { return false }
        last = now
        return true
    }
}
