import BreezeCore
import BreezeData
import BreezePlaces
import BreezeProtocol
import BreezeServer
import BreezeWeb
import FoundationEssentials

/// The commands the socket server hands to the daemon: search, select, here, saved, popular, location, refresh,
/// lookup, look. `route` is the one table: each command answered by one function, now (a read, from `reads`) or later (a
/// change, on the daemon's actor; an online search).
extension Daemon {
    /// The answer to `request` from a peer with user id `peerUID`; the socket server has checked that the peer may
    /// make it (`ProtocolRequest.changesState`).
    nonisolated func route(_ request: ProtocolRequest, peerUID: UInt32?) -> SocketServer.Answer {
        guard case .daemon(let command) = request.command.route else {
            let error = ProtocolError(.internal, "\(request.command.rawValue) is answered by the socket server")
            return .now(ReadOnlyRequests.errorLines(error, request))
        }
        switch command {
        case .lookup: return .now(reads.lookup(request))
        case .popular: return .now(reads.popular(request))
        case .search: return reads.search(request)
        case .look:
            return .later { [self] in
                do throws(ProtocolError) {
                    return try await look(request)
                } catch {
                    return ReadOnlyRequests.errorLines(error, request)
                }
            }
        case .saved where !request.changesState: return .now(reads.savedList(request))
        case .select, .here, .saved, .location, .refresh:
            return .later { [self] in
                do throws(ProtocolError) {
                    return try await change(command, request, peerUID: peerUID)
                } catch {
                    return ReadOnlyRequests.errorLines(error, request)
                }
            }
        }
    }

    /// Answers a request in process, by the path the socket server takes, for a peer with user id `peerUID` that may
    /// change state. For tests and the fuzzer.
    public func handle(_ request: ProtocolRequest, peerUID: UInt32?) async -> [JSONValue] {
        let lines: [[UInt8]]
        switch route(request, peerUID: peerUID) {
        case .now(let now): lines = now
        case .later(let work): lines = await work()
        }
        return lines.map { line in
            do throws(ProtocolError) {
                return try JSONValue.parse(String(decoding: line, as: UTF8.self))
            } catch {
                return ProtocolMessage.error(ProtocolError(.internal, "an answer is not JSON: \(error.message)"))
            }
        }
    }

    /// The commands that change the daemon's state, on its actor: the lines answering each.
    private func change(
        _ command: RequestRoute.DaemonCommand, _ request: ProtocolRequest, peerUID: UInt32?
    ) async throws(ProtocolError) -> [[UInt8]] {
        func reply(_ message: JSONValue) -> [[UInt8]] {
            [ProtocolMessage.reply(message, id: request.id).encodedLine()]
        }
        switch command {
        case .select:
            let place = try resolve(request)
            try change { $0.selected = place }
            logger.info("select", ["place": place.displayName, "peer.uid": peerUID ?? 0])
            publishLocation()
            return reply(locationReply())
        case .here:
            try change { $0.selected = nil }
            publishLocation()
            return reply(locationReply())
        case .saved:
            switch try request.string("action", default: "list") {
            case "add":
                let place = try resolve(request)
                if !state.saved.contains(where: { $0.id == place.id }) {
                    guard state.saved.count < UserState.maximumSavedCities else {
                        throw ProtocolError(
                            .badArgument, "at most \(UserState.maximumSavedCities) saved cities; remove one first")
                    }
                    try change { $0.saved.append(place) }
                }
            case "remove":
                let id = try request.integer("city", in: 1...UserState.maximumPlaceID)
                guard state.saved.contains(where: { $0.id == id }) else {
                    throw ProtocolError(.notFound, "no saved city with id \(id)")
                }
                try change { $0.saved.removeAll { $0.id == id } }
            case let other:
                throw ProtocolError(.badArgument, "saved action must be list, add or remove, not \"\(other)\"")
            }
            standInChanged()  // the first saved city may stand in
            return reads.savedList(request)
        case .location:
            guard case .bool(let enabled)? = request.body["enabled"] else {
                throw ProtocolError(.badArgument, "location needs \"enabled\": true or false")
            }
            try change { $0.locationEnabled = enabled }
            await switchLocation(enabled)
            return reply(ProtocolMessage.permission(await location.permission))
        case .refresh:
            let wait = try request.bool("wait", default: false)
            guard let pipeline else {
                throw ProtocolError(.unavailable, "web requests are off (--offline)")
            }
            guard let place = await pipeline.place else {
                throw ProtocolError(.unavailable, "no place to fetch data for yet")
            }
            guard wait else {
                await pipeline.refresh()
                return reply(.object([("class", .string("OK")), ("command", .string("refresh"))]))
            }
            // Nothing answers a wait once the daemon is stopping.
            guard !stopping else { throw ProtocolError(.shuttingDown, "breezed is stopping") }
            // Waiting before the refresh starts, so that no update of it can pass unseen.
            let key = refreshWaits.add(RefreshWait(place: place, since: Date().timeIntervalSince1970))
            await pipeline.refresh()
            return reply(RefreshWait.reply(await refreshAnswers(key)))
        case .lookup, .popular, .search, .look:
            throw ProtocolError(.internal, "\(command) only reads: it is answered from `reads`")
        }
    }

    /// The answer to `look`: a place's data without making it the daemon's (`DataPipeline.look`): the place
    /// shown, the bar and the broker stay as they are.
    private func look(_ request: ProtocolRequest) async throws(ProtocolError) -> [[UInt8]] {
        let place = try resolve(request)
        let known = Dataset.allCases.map(\.className)
        let classes = try request.classes("classes", known: known)
        let datasets = Dataset.allCases.filter { classes?.contains($0.className) ?? true }
        let objects: [JSONValue]
        if let pipeline {
            let updates = await pipeline.look(at: place, datasets)
            let now = Date().timeIntervalSince1970
            objects = updates.map { update in
                DatasetMessage.message(
                    update.dataset, status: update.status, place: update.place, report: update.report,
                    fetchedAt: update.fetchedAt, now: now,
                    freshFor: configuration.refresh[update.dataset] ?? update.dataset.defaultFreshness)
            }
        } else {
            objects = datasets.map {
                DatasetMessage.empty($0, status: .offline, reason: "web requests are off (--offline)")
            }
        }
        let message = JSONValue.object([
            ("class", .string("LOOK")),
            ("place", ProtocolMessage.place(place, distance: nil, distinctName: citySearch.distinctName(place))),
            ("datasets", .array(objects)),
        ])
        return [ProtocolMessage.reply(message, id: request.id).encodedLine()]
    }

    /// The answers of the refresh wait `key`, once it is complete or `RefreshWait.limit` has passed.
    private func refreshAnswers(_ key: Int) async -> [Dataset: DataUpdate] {
        refreshWaits[key]?.timer = Task { [self] in
            guard (try? await clock.sleep(for: RefreshWait.limit)) != nil else { return }
            self.endRefreshWait(key, expired: true)
        }
        // A client that leaves (its request task cancelled) ends its wait at once: the handler's slot is free again.
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard let wait = refreshWaits[key], !wait.isComplete else {
                    let ended = refreshWaits.removeValue(forKey: key)
                    ended?.timer?.cancel()
                    continuation.resume(returning: ended?.answers ?? [:])
                    return
                }
                refreshWaits[key]!.continuation = continuation
            }
        } onCancel: {
            Task { await self.endRefreshWait(key, expired: true) }
        }
    }

    /// Answers the refresh wait `key` with what it has (`expired`: whether or not every dataset answered).
    func endRefreshWait(_ key: Int, expired: Bool = false) {
        guard var wait = refreshWaits[key] else { return }
        wait.expired = wait.expired || expired
        guard let continuation = wait.continuation else {
            refreshWaits[key] = wait  // answered as soon as the request starts waiting
            return
        }
        refreshWaits[key] = nil
        wait.timer?.cancel()
        continuation.resume(returning: wait.answers)
    }

    /// Applies a change to the user's state only once it is on disk: an acknowledged change survives a crash, and
    /// a change that could not be saved leaves no trace (in memory, or in the next successful save).
    private func change(_ edit: (inout UserState) -> Void) throws(ProtocolError) {
        var changed = state
        edit(&changed)
        guard changed != state else { return }
        do throws(StateFileError) {
            try store.save(changed)
        } catch  where error.code == .system {
            logger.error("state.write_failed", ["path": store.path, "error": error])
            throw ProtocolError(.internal, "could not save the change")
        } catch {
            // A value the state file cannot hold (a name too long, a place out of range): the request's fault.
            throw ProtocolError(.badArgument, error.message)
        }
        state = changed
        reads.savedCities = changed.saved
    }

    private func locationReply() -> JSONValue {
        guard let update = named else { return noLocationMessage() }
        return locationMessage(update)
    }

    /// A city from `id` (a GeoNames id, or one from online search) or `query` (its best match: `CitySearch.bestMatch`).
    private func resolve(_ request: ProtocolRequest) throws(ProtocolError) -> Place {
        // "id" is the request's own id (echoed in the reply), so a city's GeoNames id travels as "city".
        if let city = request.body["city"], city != .null {
            return try place(id: try request.integer("city", in: 1...UserState.maximumPlaceID))
        }
        if case .string(let query)? = request.body["query"] {
            guard query.count >= CitySearch.minimumQueryLength else {
                throw ProtocolError(.badArgument, "a query needs at least \(CitySearch.minimumQueryLength) characters")
            }
            guard let match = citySearch.bestMatch(query) else {
                throw ProtocolError(.notFound, "no city matches \"\(query)\"")
            }
            return match.place
        }
        throw ProtocolError(.badArgument, "\(request.command.rawValue) needs \"city\" (a GeoNames id) or \"query\"")
    }

    private func place(id: Int) throws(ProtocolError) -> Place {
        guard let place = reads.place(id: id) else { throw ProtocolError(.notFound, "no city with id \(id)") }
        return place
    }
}
