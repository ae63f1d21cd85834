import BreezeCore

extension SocketServer {
    /// Every bound the server keeps, in one place; docs/PROTOCOL.md ("Bounds") says what a client sees at each.
    public struct Configuration: Sendable {
        public var release = Release.version
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
}
