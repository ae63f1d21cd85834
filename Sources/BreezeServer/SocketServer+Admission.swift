import BreezeProtocol
import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Admission: accepting clients, who they are (credentials, trust), and the client limit with its reserve for
/// trusted peers; a client past the limit is told why.
extension SocketServer {
    func acceptClients(reading buffer: UnsafeMutableRawBufferPointer) {
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
                let reserve =
                    trusted ? 0 : min(max(0, configuration.reservedForTrusted), configuration.maximumClients / 2)
                guard state.clients.count < configuration.maximumClients - reserve else { return false }
                let peer = Peer(id: state.nextID, credentials: credentials, trusted: trusted)
                state.nextID += 1
                let client = ClientConnection(
                    fd: fd, peer: peer, framer: LineFramer(maximumLength: configuration.maximumLineLength))
                client.outbox.enqueue(reply: greeting)
                state.queuedReplyBytes += greeting.count
                state.clients[fd] = client
                state.schedule.pending.insert(fd)
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

    /// Tells a client past the limit why, shuts the write side (it reads the refusal, then end of file), and keeps the
    /// descriptor until the client closes or `refusedLinger` passes: closed at once, a client that had written its
    /// request would read a reset instead.
    private func refuse(_ fd: Int32) {
        ClientConnection.sendOnce(
            Self.line(
                ProtocolMessage.error(
                    ProtocolError(
                        .tooManyClients,
                        "breezed serves at most \(configuration.maximumClients) clients; try again later"))), to: fd)
        shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .milliseconds(Int(configuration.refusedLinger * 1000))
        let evicted = state.withLock { $0.refused.keep(fd, until: deadline, limit: configuration.maximumRefused) }
        if let evicted { close(evicted) }
        if evicted != fd { poller.add(fd, readable: false) }  // reported when its client hangs up
    }

    /// Closes `fd` if it is a refused connection (its client hung up); false for any other descriptor.
    func closeRefused(_ fd: Int32) -> Bool {
        let found = state.withLock { $0.refused.remove(fd) }
        if found { close(fd) }
        return found
    }

    /// Raises the soft limit on open descriptors to at least `count` (within the hard limit), so the default of 1,024
    /// clients is reachable under systemd's soft limit of 1,024. Not to the hard limit itself: that can be a million,
    /// and Foundation's `Process` then works through every possible descriptor when it starts a child.
    public static func raiseDescriptorLimit(atLeast count: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = min(limit.rlim_max, rlim_t(max(0, count)))
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = wanted
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
