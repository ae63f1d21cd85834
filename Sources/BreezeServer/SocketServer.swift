public import BreezeProtocol
import BreezeSystem
import Foundation
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
public final class SocketServer: Sendable {
    public struct Configuration: Sendable {
        public var release = "0.1.0"
        public var maximumClients = 1_024
        public var maximumLineLength = 65_536
        public var maximumQueuedReplies = 256
        /// Seconds a client may accept nothing while output waits for it.
        public var stallTimeout = 30.0
        public var trust = TrustPolicy()
        /// Classes in the order a snapshot lists them.
        public var snapshotOrder = ["PERMISSION", "LOCATION", "AIR", "POLLEN", "CLIMATE"]

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

    let configuration: Configuration
    private let listener: UnixListener
    private let wakeup = WakeupPipe()
    private let poller = EventPoller()
    private let handler: Handler
    private let state: Mutex<State>

    private struct Update {
        var className: String
        var bytes: [UInt8]
    }

    private struct Client {
        let fd: Int32
        let peer: Peer
        var framer: LineFramer
        /// nil: not watching; otherwise the classes watched.
        var watching: Set<String>?
        /// The watched classes that have a bit in `State.classBits`, as a mask: what `publish` tests per client.
        var watchMask: UInt64 = 0
        var replies: [[UInt8]] = []
        var updates: [Update] = []
        var writing: [UInt8] = []
        var written = 0
        var blockedSince: ContinuousClock.Instant?
        var closeAfterFlush = false
        /// Whether the poller also reports room to write: only while output waits that the socket did not take.
        var watchesWritable = false

        var hasOutput: Bool { written < writing.count || !replies.isEmpty || !updates.isEmpty }

        enum Offer {
            case notWatching, sent, queued, gone
        }

        /// Hands a published update to this client: sent at once, without a copy or a trip through the event loop,
        /// when nothing waits before it; queued (replacing an older one of its class) when something does; only
        /// what the socket does not take is kept for later. Mutating, so the fan-out works on the client in place.
        mutating func offer(
            _ update: (trusted: Update, others: Update),
            bytes: (trusted: UnsafeRawBufferPointer, others: UnsafeRawBufferPointer),
            bit: UInt64?
        ) -> Offer {
            if let bit {
                guard watchMask & bit != 0 else { return .notWatching }
            } else {
                guard watching?.contains(update.trusted.className) == true else { return .notWatching }
            }
            // `hasOutput` spelled out: through the computed property the compiler copies the whole client first.
            if written < writing.count || !replies.isEmpty || !updates.isEmpty {
                SocketServer.enqueueUpdate(&self, peer.trusted ? update.trusted : update.others)
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

    private struct State {
        var running = true
        var finished = false
        var clients = DescriptorTable<Client>()
        /// The clients with output waiting (or just queued): the loop flushes these, not every client.
        var pending: Set<Int32> = []
        var nextID = 1
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

    public init(listener: UnixListener, configuration: Configuration = Configuration(), handler: @escaping Handler) {
        self.listener = listener
        self.configuration = configuration
        self.handler = handler
        var state = State()
        for className in configuration.snapshotOrder { _ = state.bit(for: className) }
        self.state = Mutex(state)
    }

    /// Starts the event loop on its own thread.
    public func start() {
        Self.raiseDescriptorLimit(atLeast: configuration.maximumClients + 256)
        let thread = Thread { [self] in self.run() }
        thread.name = "breeze.socket"
        thread.start()
    }

    /// Tells every client the daemon is stopping, closes them, and ends the loop.
    public func stop() {
        state.withLock { $0.running = false }
        wakeup.wake()
    }

    public var clientCount: Int {
        state.withLock { $0.clients.count }
    }

    /// Publishes an update to every client watching its class. `others` is the version for untrusted peers
    /// (coordinates rounded); nil sends `message` to all.
    public func publish(_ message: JSONValue, others: JSONValue? = nil) {
        guard let className = message["class"]?.stringValue else { return }
        let trusted = Self.line(message)
        let untrusted = others.map(Self.line) ?? trusted
        var gone: [Int32] = []
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
                        case .queued: queued.append(client.fd)
                        case .gone: gone.append(client.fd)
                        }
                    }
                }
            }
            state.pending.formUnion(queued)
        }
        gone.forEach(remove)
        if !queued.isEmpty { wakeup.wake() }
    }

    /// Sends replies to one client (from a request handler).
    func deliver(_ messages: [JSONValue], to fd: Int32, peerID: Int) {
        state.withLock { state in
            guard state.clients[fd]?.peer.id == peerID else { return }  // gone, and the descriptor reused
            for message in messages { enqueueReply(&state, fd, Self.line(message)) }
        }
        wakeup.wake()
    }

    static func line(_ message: JSONValue) -> [UInt8] {
        Array((message.encoded() + "\n").utf8)
    }

    private enum SendOutcome {
        case sent
        case partly(Int)
        case gone
    }

    /// One non-blocking send of a whole line.
    private static func sendNow(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> SendOutcome {
        while true {
            let count = send(fd, bytes.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if count == bytes.count { return .sent }
            if count >= 0 { return .partly(count) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .partly(0) }
            return .gone
        }
    }

    private static func enqueueUpdate(_ client: inout Client, _ update: Update) {
        if let index = client.updates.firstIndex(where: { $0.className == update.className }) {
            client.updates[index] = update  // newest replaces the older one still queued
        } else {
            client.updates.append(update)
        }
    }

    /// Queues a reply for the client at `fd` and marks it for the next flush.
    private func enqueueReply(_ state: inout State, _ fd: Int32, _ bytes: [UInt8]) {
        guard state.clients.contains(fd) else { return }
        state.pending.insert(fd)
        guard state.clients[fd]!.replies.count < configuration.maximumQueuedReplies else {
            // A client that sends requests and reads no replies: it is told once, then closed.
            state.clients[fd]!.replies.append(Self.line(ProtocolMessage.error(ProtocolError(
                .slowClient, "more than \(configuration.maximumQueuedReplies) replies waiting; closing"))))
            state.clients[fd]!.closeAfterFlush = true
            return
        }
        state.clients[fd]!.replies.append(bytes)
    }

    // MARK: - The event loop

    private func run() {
        poller.add(wakeup.readEnd)
        poller.add(listener.fd)
        var anyBlocked = false
        while state.withLock({ $0.running }) {
            // While output waits on a client, wake at least twice a second to see whether it has stalled.
            for event in poller.wait(timeoutMilliseconds: anyBlocked ? 500 : -1) {
                if event.fd == wakeup.readEnd {
                    wakeup.drain()
                } else if event.fd == listener.fd {
                    acceptClients()
                } else {
                    if event.readable || event.closed { readFrom(event.fd) }
                    if event.writable { state.withLock { _ = $0.pending.insert(event.fd) } }
                }
            }
            anyBlocked = flushPending()
            closeStalled()
        }
        shutDown()
    }

    private func acceptClients() {
        while true {
            let fd = accept(listener.fd, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return  // EAGAIN: no more waiting; EMFILE and the like: try again on the next wake-up
            }
            // accept4 is not imported without _GNU_SOURCE: set the flags after accepting.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let credentials = PeerCredentials.of(fd)
            let admitted = state.withLock { state -> Bool in
                guard state.clients.count < configuration.maximumClients else { return false }
                let peer = Peer(
                    id: state.nextID, credentials: credentials,
                    trusted: credentials.map(configuration.trust.trusts) ?? false)
                state.nextID += 1
                var client = Client(fd: fd, peer: peer, framer: LineFramer(maximumLength: configuration.maximumLineLength))
                client.replies.append(Self.line(ProtocolMessage.version(release: configuration.release)))
                state.clients[fd] = client
                state.pending.insert(fd)
                return true
            }
            if admitted {
                poller.add(fd)
            } else {
                let line = Self.line(ProtocolMessage.error(ProtocolError(
                    .tooManyClients, "breezed serves at most \(configuration.maximumClients) clients; try again later")))
                _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(fd)
            }
        }
    }

    private func readFrom(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if count <= 0 {
                remove(fd)
                return
            }
            let outputs = state.withLock { state -> [LineFramer.Output] in
                guard state.clients.contains(fd) else { return [] }
                return state.clients[fd]!.framer.push(buffer[0..<count])
            }
            for output in outputs { handle(output, from: fd) }
            if count < buffer.count { return }
        }
    }

    private func handle(_ output: LineFramer.Output, from fd: Int32) {
        let request: ProtocolRequest
        do throws(ProtocolError) {
            switch output {
            case .tooLong:
                throw ProtocolError(.lineTooLong, "a line is at most \(configuration.maximumLineLength) bytes; it was dropped")
            case .invalidText:
                throw ProtocolError(.invalidText, "a line must be UTF-8 text")
            case .line(let text):
                if text.allSatisfy(\.isWhitespace) { return }
                request = try ProtocolRequest.parse(text)
            }
        } catch {
            reply(fd, [ProtocolMessage.error(error)])
            return
        }

        guard let peer = state.withLock({ $0.clients[fd]?.peer }) else { return }
        if request.changesState && !peer.trusted {
            reply(fd, [ProtocolMessage.error(ProtocolError(
                .notPermitted, "\(request.command.rawValue) changes breezed's state: run it as root, as breezed's "
                    + "user, or as a member of its group"), id: request.id)])
            return
        }
        switch request.command {
        case .version:
            reply(fd, [ProtocolMessage.reply(ProtocolMessage.version(release: configuration.release), id: request.id)])
        case .status:
            state.withLock { state in
                guard state.clients.contains(fd) else { return }
                for className in configuration.snapshotOrder {
                    guard let latest = state.latest[className] else { continue }
                    let bytes = peer.trusted ? latest.trusted : latest.others
                    enqueueReply(&state, fd, Self.withID(bytes, request.id))
                }
            }
        case .watch:
            let classes: Set<String>
            if case .array(let names)? = request.body["classes"] {
                classes = Set(names.compactMap { $0.stringValue?.uppercased() })
            } else {
                classes = Set(configuration.snapshotOrder)
            }
            state.withLock { state in
                guard state.clients.contains(fd) else { return }
                state.clients[fd]!.watching = classes
                state.clients[fd]!.watchMask = state.mask(of: classes)
                let ack = JSONValue.object([
                    ("class", .string("WATCH")), ("enable", .bool(true)),
                    ("classes", .array(configuration.snapshotOrder.filter(classes.contains).map(JSONValue.string))),
                ])
                enqueueReply(&state, fd, Self.line(ProtocolMessage.reply(ack, id: request.id)))
                for className in configuration.snapshotOrder where classes.contains(className) {
                    guard let latest = state.latest[className] else { continue }
                    Self.enqueueUpdate(
                        &state.clients[fd]!,
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
        default:
            let handler = handler
            Task {
                let replies = await handler(request, peer)
                self.deliver(replies.map { ProtocolMessage.reply($0, id: request.id) }, to: fd, peerID: peer.id)
            }
        }
    }

    /// The encoded line with `"id"` added, for snapshot objects sent as replies: spliced in before the closing
    /// brace, so the stored line is not parsed and encoded again (published objects carry no id of their own).
    private static func withID(_ bytes: [UInt8], _ id: JSONValue?) -> [UInt8] {
        guard let id, bytes.count > 3, bytes.suffix(2) == [UInt8(ascii: "}"), 0x0A] else { return bytes }
        return Array(bytes.dropLast(2)) + Array(",\"id\":\(id.encoded())}\n".utf8)
    }

    private func reply(_ fd: Int32, _ messages: [JSONValue]) {
        state.withLock { state in
            guard state.clients.contains(fd) else { return }
            for message in messages { enqueueReply(&state, fd, Self.line(message)) }
        }
    }

    /// Flushes the clients with output waiting; those whose socket takes no more are watched for room to write.
    /// Returns whether any output is still waiting.
    private func flushPending() -> Bool {
        var gone: [Int32] = []
        var waiting: Set<Int32> = []
        state.withLock { state in
            for fd in state.pending {
                guard state.clients.contains(fd), Self.flush(&state.clients[fd]!) else {
                    gone.append(fd)
                    continue
                }
                let hasOutput = state.clients[fd]!.hasOutput
                if hasOutput != state.clients[fd]!.watchesWritable {
                    state.clients[fd]!.watchesWritable = hasOutput
                    poller.change(fd, writable: hasOutput)
                }
                if hasOutput { waiting.insert(fd) }
            }
            state.pending = waiting
        }
        gone.forEach(remove)
        return !waiting.isEmpty
    }

    /// Writes what the socket takes. Replies go before updates. Returns false when the client must be closed.
    private static func flush(_ client: inout Client) -> Bool {
        while true {
            if client.written == client.writing.count {
                client.writing = []
                client.written = 0
                // An emptied queue is replaced by the shared empty array, not kept with its buffer: an idle
                // client then holds no queue memory, and the fan-out's "anything waiting?" test reads no buffer
                // of its own (one cache miss per client, a fifth of publishing to 1,000 of them).
                if !client.replies.isEmpty {
                    client.writing = client.replies.removeFirst()
                    if client.replies.isEmpty { client.replies = [] }
                } else if !client.updates.isEmpty {
                    client.writing = client.updates.removeFirst().bytes
                    if client.updates.isEmpty { client.updates = [] }
                } else {
                    client.blockedSince = nil
                    return !client.closeAfterFlush
                }
            }
            let count = client.writing.withUnsafeBytes { bytes in
                send(client.fd, bytes.baseAddress! + client.written, bytes.count - client.written, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                client.written += count
                client.blockedSince = nil
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                if client.blockedSince == nil { client.blockedSince = .now }
                return true
            }
            return false  // EPIPE, ECONNRESET: the client is gone
        }
    }

    private func closeStalled() {
        let limit = Duration.milliseconds(Int(configuration.stallTimeout * 1000))
        let now = ContinuousClock.now
        let stalled = state.withLock { state in
            // Only a client with output waiting can have stalled.
            state.pending.filter { fd in
                state.clients[fd]?.blockedSince.map { $0.duration(to: now) > limit } ?? false
            }
        }
        for fd in stalled {
            let line = Self.line(ProtocolMessage.error(ProtocolError(
                .slowClient, "read nothing for \(Int(configuration.stallTimeout)) s while updates waited; closing")))
            // Best effort: the socket is full, so this goes out only if the client finally reads.
            _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            remove(fd)
        }
    }

    private func remove(_ fd: Int32) {
        let removed = state.withLock { state in
            state.pending.remove(fd)
            return state.clients.removeValue(for: fd) != nil
        }
        if removed { close(fd) }
    }

    /// Sends what each client still has waiting (as far as its socket takes it without waiting), then the goodbye
    /// unless a line is left half-written, and closes it.
    private func shutDown() {
        let line = Self.line(ProtocolMessage.error(ProtocolError(.shuttingDown, "breezed is stopping")))
        var clients = state.withLock { state in
            defer { state.clients.removeAll() }
            return state.clients.values
        }
        for index in clients.indices {
            _ = Self.flush(&clients[index])
            if clients[index].written == clients[index].writing.count {
                _ = line.withUnsafeBytes { send(clients[index].fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            }
            close(clients[index].fd)
        }
        state.withLock { $0.finished = true }
    }

    /// True once `stop()` has told every client and closed it.
    public var hasStopped: Bool {
        state.withLock { $0.finished }
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
