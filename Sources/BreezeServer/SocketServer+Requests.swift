import BreezeCore
import BreezeProtocol

/// Requests: the one path a line takes to its answer. Parsed; refused when it changes state and the peer is not
/// trusted; answered by the server when it is one of its own commands (`RequestRoute.server`), else by the owner's
/// `Router`, now or by a task, within the client's and the server's limits.
extension SocketServer {
    /// What became of a held line.
    enum Taken {
        /// Answered, or handed to a task: it is no longer held.
        case answered
        /// Left held: the pass's time for answering in place is spent.
        case outOfTime
        /// Left held: the client's requests in flight, or all handlers, are at their limit.
        case waitsForLimits
    }

    /// True when `text` is whitespace only. A line that starts with an ASCII byte other than whitespace (a request's
    /// "{") is not, and is told without looking up a character's properties.
    static func isBlank(_ text: String) -> Bool {
        if let first = text.utf8.first, first < 0x80, first != 0x20, !(0x09...0x0D).contains(first) { return false }
        return text.allSatisfy(\.isWhitespace)
    }

    /// Takes up the client's next held line: answers it, or hands it to a task. `budgeted`: only while the pass's time
    /// for answering in place lasts; what the line costs counts against it either way.
    func take(_ output: LineFramer.Output, from fd: Int32, peer: Peer, budgeted: Bool) -> Taken {
        let limit = Duration.nanoseconds(Int64(configuration.immediateWorkPerTurn * 1e9))
        let started = ContinuousClock.now
        if budgeted, state.withLock({ $0.schedule.immediateSpent >= limit }) { return .outOfTime }
        defer {
            let took = started.duration(to: .now)
            state.withLock { $0.schedule.immediateSpent += took }
        }
        let request: ProtocolRequest
        do throws(ProtocolError) {
            switch output {
            case .tooLong:
                throw ProtocolError(
                    .lineTooLong, "a line is at most \(configuration.maximumLineLength) bytes; it was dropped")
            case .invalidText:
                throw ProtocolError(.invalidText, "a line must be UTF-8 text")
            case .line(let text):
                if Self.isBlank(text) {
                    consumeLine(fd)
                    return .answered
                }
                request = try ProtocolRequest.parse(text)
            }
            if request.changesState && !peer.trusted {
                throw ProtocolError(
                    .notPermitted,
                    "\(request.command.rawValue) changes breezed's state: run it as root, as breezed's "
                        + "user, or as a member of its group"
                        + (configuration.trust.hint.map { "; \($0)" } ?? ""), requestID: request.id)
            }
        } catch {
            answer(fd, lines: [Self.line(ProtocolMessage.error(error))])
            return .answered
        }
        switch request.command.route {
        case .server(let command):
            consumeLine(fd)
            answer(command, request, fd: fd, peer: peer)
            return .answered
        case .daemon:
            // Encoding the answer counts against the pass's time too: for a search it costs as much as finding the
            // places.
            switch route(request, peer) {
            case .now(let lines):
                answer(fd, lines: lines)
                return .answered
            case .later(let work):
                return startTask(work, from: fd, peer: peer)
            }
        }
    }

    /// Runs the owner's `.later` work for the request as a task, if the client's and the server's limits allow.
    private func startTask(
        _ work: @escaping @Sendable () async -> [[UInt8]], from fd: Int32, peer: Peer
    ) -> Taken {
        // Started and recorded under the lock, so that its delivery (which takes the lock) finds it recorded.
        state.withLock { state -> Taken in
            guard let client = state.clients[fd] else { return .answered }
            // At the client's own limit it is seen to again when one of its tasks delivers.
            guard client.tasks.count < configuration.maximumRequestsInFlight else { return .waitsForLimits }
            guard state.handlersInFlight < configuration.maximumHandlersInFlight else {
                state.schedule.awaitingHandler.insert(fd)
                return .waitsForLimits
            }
            client.next = nil
            let serial = client.nextSerial
            client.nextSerial += 1
            state.handlersInFlight += 1
            client.tasks[serial] = Task {
                let lines = await work()
                self.deliver(lines, to: fd, peerID: peer.id, serial: serial)
            }
            return .answered
        }
    }

    /// Sends a task's answer to its client and forgets the task.
    private func deliver(_ lines: [[UInt8]], to fd: Int32, peerID: Int, serial: Int) {
        state.withLock { state in
            state.handlersInFlight -= 1
            // A handler is free: the clients waiting for one are seen to.
            state.schedule.pending.formUnion(state.schedule.awaitingHandler)
            state.schedule.awaitingHandler.removeAll()
            guard let client = state.clients[fd], client.peer.id == peerID else { return }  // gone, the fd reused
            client.tasks[serial] = nil
            for line in lines { enqueueReply(&state, fd, line) }
            state.schedule.pending.insert(fd)  // also to take up lines held while the task ran
        }
        wakeup.wake()
    }

    /// Takes up the client's next held line and queues the answer to it, encoded.
    private func answer(_ fd: Int32, lines: [[UInt8]]) {
        state.withLock { state in
            guard let client = state.clients[fd] else { return }
            client.next = nil
            for line in lines { enqueueReply(&state, fd, line) }
        }
    }

    /// Answers the requests the server answers itself, from what it holds: version, status, watch, unwatch.
    private func answer(_ command: RequestRoute.ServerCommand, _ request: ProtocolRequest, fd: Int32, peer: Peer) {
        switch command {
        case .version:
            let version = versionReply.withLock { $0 }
            // An "id" among the owner's members gives way to the request's, as `ProtocolMessage.reply` has it.
            let line =
                version.hasID && request.id != nil
                ? Self.line(ProtocolMessage.reply(version.object, id: request.id))
                : ProtocolMessage.replyLine(version.line, id: request.id)
            state.withLock { enqueueReply(&$0, fd, line) }
        case .status:
            state.withLock { state in
                for className in configuration.snapshotOrder {
                    guard let latest = state.broadcast.latest(className, for: peer) else { continue }
                    enqueueReply(&state, fd, ProtocolMessage.replyLine(latest, id: request.id))
                }
            }
        case .watch:
            let classes: Set<String>
            do throws(ProtocolError) {
                classes =
                    try request.classes("classes", known: configuration.watchableClasses)
                    ?? Set(configuration.snapshotOrder)
            } catch {
                let line = Self.line(ProtocolMessage.error(error, id: request.id))
                state.withLock { enqueueReply(&$0, fd, line) }
                return
            }
            let ack = Self.line(
                ProtocolMessage.reply(
                    .object([
                        ("class", .string("WATCH")), ("enable", .bool(true)),
                        (
                            "classes",
                            .array(configuration.watchableClasses.filter(classes.contains).map(JSONValue.string))
                        ),
                    ]), id: request.id))
            state.withLock { state in
                guard let client = state.clients[fd] else { return }
                client.watching = classes
                client.watchMask = state.broadcast.mask(of: classes)
                enqueueReply(&state, fd, ack)
                for className in configuration.snapshotOrder where classes.contains(className) {
                    guard let latest = state.broadcast.latest(className, for: peer) else { continue }
                    client.outbox.enqueue(ClientConnection.Update(className: className, bytes: latest))
                }
            }
        case .unwatch:
            let ack = Self.line(
                ProtocolMessage.reply(
                    .object([("class", .string("WATCH")), ("enable", .bool(false))]), id: request.id))
            state.withLock { state in
                guard let client = state.clients[fd] else { return }
                client.watching = nil
                client.watchMask = 0
                client.outbox.updates.removeAll()
                enqueueReply(&state, fd, ack)
            }
        }
    }
}
