import BreezeProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Output: what waits for each client, sent as far as its socket takes it; the bounds that hold a client back or
/// close it (replies waiting, a stall, a line begun and not ended); and closing, one client or all.
extension SocketServer {
    /// Queues a reply for the client at `fd` and marks it for the next flush. At `maximumQueuedReplies` the client is
    /// told once, and nothing more is queued for it.
    func enqueueReply(_ state: inout ServerState, _ fd: Int32, _ bytes: [UInt8]) {
        guard let client = state.clients[fd], !client.closeAfterFlush else { return }
        state.schedule.pending.insert(fd)
        var line = bytes
        if client.outbox.replies.count >= configuration.maximumQueuedReplies {
            line = Self.line(
                ProtocolMessage.error(
                    ProtocolError(
                        .slowClient, "more than \(configuration.maximumQueuedReplies) replies waiting; closing")))
            client.closeAfterFlush = true
        }
        client.outbox.enqueue(reply: line)
        state.queuedReplyBytes += line.count
    }

    /// Whether the server takes up another of the client's lines now: not while its replies wait past their high
    /// water, nor, while all clients' waiting replies are past the server's bound, while any of its own wait.
    func canTakeLine(_ client: ClientConnection, _ state: ServerState) -> Bool {
        !client.closeAfterFlush && client.outbox.replies.count < configuration.replyHighWater
            && client.outbox.queuedBytes < configuration.replyHighWaterBytes
            && (client.outbox.queuedBytes == 0 || state.queuedReplyBytes < configuration.maximumQueuedReplyBytes)
    }

    /// Sees to the clients marked pending: flushes their output, queues for the queued pass those holding a line they
    /// may now take up (their replies were read, a handler finished), and sets what each is watched for. A client
    /// whose socket failed, or that was to be closed once flushed and is, goes.
    func servePending() {
        var gone: [Int32] = []
        var served: [Int32] = []
        state.withLock { state in
            // Taken whole: what is marked while these are seen to waits for the next turn.
            var pending = DescriptorSet()
            swap(&pending, &state.schedule.pending)
            defer {
                // Its room is kept for the next turn.
                pending.removeAll()
                if state.schedule.pending.isEmpty { state.schedule.pending = pending }
            }
            for fd in pending {
                guard let client = state.clients[fd] else { continue }
                let queued = client.outbox.queuedBytes
                let flushed = client.flush()
                state.queuedReplyBytes -= queued - client.outbox.queuedBytes
                guard flushed else {
                    gone.append(fd)
                    continue
                }
                if client.hasOutput {
                    state.schedule.blocked.insert(fd)
                } else {
                    state.schedule.blocked.remove(fd)
                }
                if client.hasHeld, canTakeLine(client, state), !state.schedule.fresh.contains(fd) {
                    state.schedule.backlog.append(fd)
                }
                served.append(fd)
            }
        }
        gone.forEach(remove)
        served.forEach(updateInterest)
    }

    /// Sets what the poller watches the client for: input only while it is not held back, room to write only while
    /// output waits. Outside the lock: `epoll_ctl` is a system call.
    func updateInterest(_ fd: Int32) {
        let change = state.withLock { state -> (readable: Bool, writable: Bool)? in
            guard let client = state.clients[fd] else { return nil }
            let readable = !client.hasHeld && canTakeLine(client, state)
            let writable = client.hasOutput
            guard readable != client.watchesReadable || writable != client.watchesWritable else { return nil }
            if readable && !client.watchesReadable && client.lineSince != nil {
                client.lineSince = .now  // held back is not idle: its line's time starts again
            }
            client.watchesReadable = readable
            client.watchesWritable = writable
            return (readable, writable)
        }
        if let change { poller.change(fd, readable: change.readable, writable: change.writable) }
    }

    /// Closes what is overdue: clients stalled with output waiting, clients holding a line begun too long ago, refused
    /// connections kept long enough. Returns whether any deadline is still pending.
    func closeOverdue() -> Bool {
        let stallLimit = Duration.milliseconds(Int(configuration.stallTimeout * 1000))
        let lineLimit = Duration.milliseconds(Int(configuration.partialLineTimeout * 1000))
        let lineError = Self.line(
            ProtocolMessage.error(
                ProtocolError(
                    .slowClient,
                    "a line was begun \(Int(configuration.partialLineTimeout)) s ago and not ended; closing")))
        let now = ContinuousClock.now
        let (stalled, expired, pendingDeadlines) = state.withLock { state -> ([Int32], [Int32], Bool) in
            let stalled = state.schedule.blocked.filter { fd in
                state.clients[fd]?.outbox.blockedSince.map { $0.duration(to: now) > stallLimit } ?? false
            }
            let overdueLines = state.schedule.midLine.filter { fd in
                guard let client = state.clients[fd] else { return true }
                return client.watchesReadable && !client.closeAfterFlush
                    && (client.lineSince.map { $0.duration(to: now) > lineLimit } ?? false)
            }
            for fd in overdueLines {
                state.schedule.midLine.remove(fd)
                guard let client = state.clients[fd] else { continue }
                enqueueReply(&state, fd, lineError)
                client.closeAfterFlush = true
            }
            let expired = state.refused.removeExpired(at: now)
            let pending = !state.schedule.blocked.isEmpty || !state.schedule.midLine.isEmpty || !state.refused.isEmpty
            return (Array(stalled), expired, pending)
        }
        if !stalled.isEmpty {
            let line = Self.line(
                ProtocolMessage.error(
                    ProtocolError(
                        .slowClient,
                        "read nothing for \(Int(configuration.stallTimeout)) s while updates waited; closing")))
            for fd in stalled {
                // Best effort: the socket is full, so this goes out only if the client finally reads.
                ClientConnection.sendOnce(line, to: fd)
                remove(fd)
            }
        }
        for fd in expired { close(fd) }
        // Stalled ones leave room; overdue lines' errors wait to be sent: see to them now, not at the next wake-up.
        if !stalled.isEmpty || !expired.isEmpty || state.withLock({ !$0.schedule.pending.isEmpty }) { servePending() }
        return pendingDeadlines
    }

    /// Forgets a client: cancels its tasks, frees its queues, closes its descriptor. Socket thread only.
    func remove(_ fd: Int32) {
        let removed = state.withLock { state -> [Task<Void, Never>]? in
            state.schedule.remove(fd)
            guard let removed = state.clients.removeValue(for: fd) else { return nil }
            state.queuedReplyBytes -= removed.outbox.queuedBytes
            return Array(removed.tasks.values)
        }
        guard let removed else { return }
        for task in removed { task.cancel() }
        close(fd)
    }

    /// Sends what each client still has waiting (as far as its socket takes it without waiting), then the goodbye
    /// unless a line is left half-written, and closes it.
    func shutDown() {
        let line = Self.line(ProtocolMessage.error(ProtocolError(.shuttingDown, "breezed is stopping")))
        // Under the lock: the clients live in the state. Nothing here waits (the sends do not block), and the loop is
        // over, so nobody else waits for it long.
        let waiters = state.withLock { state in
            for client in state.clients.values {
                for task in client.tasks.values { task.cancel() }
                _ = client.flush()
                if client.outbox.written == client.outbox.writing.count {
                    ClientConnection.sendOnce(line, to: client.fd)
                }
                close(client.fd)
            }
            for fd in state.refused.descriptors { close(fd) }
            state.clients.removeAll()
            state.refused.removeAll()
            state.schedule.removeAll()
            state.finished = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
