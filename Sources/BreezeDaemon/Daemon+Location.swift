import BreezeCore
import BreezeData
import BreezeLocation
import BreezeMQTT
import BreezePlaces
import BreezeProtocol
import BreezeServer
import BreezeWeb
import FoundationEssentials

/// The location shown: the location service's events, the selected city over the machine's own position, the
/// `LOCATION` published (paced, coarse for others), and the data fetched for its place.
extension Daemon {
    func locationEvent(_ event: LocationServiceEvent) {
        switch event {
        case .permission(let permission):
            let isNews = permission.withoutRetryTime != shown.announcedPermission
            shown.permission = permission
            shown.announcedPermission = permission.withoutRetryTime
            // Refused (GeoClue's policy, the desktop's location switch): nothing derived from a position stays.
            if case .denied = permission { forgetPositions() }
            if case .restricted = permission { forgetPositions() }
            server?.publish(ProtocolMessage.permission(permission))
            mqtt.publisher?.publish("permission", ProtocolMessage.permission(permission))
            // A source that failed again for the same reason changes only the time of its next try: no news for the
            // log or the location shown.
            guard isNews else { return }
            logger.info("permission", ["state": permission.name, "message": permission.message])
            locationChanged()
        case .position(let update):
            // A fix still on its way when location was switched off is dropped: nothing derived from it is kept.
            guard state.locationEnabled else { return }
            shown.live = update
            shown.lastFix = update
            locationChanged()
        case .fixLost:
            break
        case .handover(let from, let to, let reason):
            logger.notice("location.handover", ["from": from?.rawValue ?? "none", "to": to.rawValue, "reason": reason])
        case .noPosition:
            shown.live = standIn()
            locationChanged()
        }
    }

    /// Publishes the location now, or at the end of the pacer's interval when one went out just before.
    func locationChanged() {
        switch shown.pacer.changed(at: .now) {
        case .now:
            if publishLocation() { shown.pacer.published(at: .now) }
        case .after(let delay):
            Task { [self] in
                try? await clock.sleep(for: delay)
                self.publishPacedLocation()
            }
        case .alreadyScheduled:
            break
        }
    }

    private func publishPacedLocation() {
        shown.pacer.fired()
        if publishLocation() { shown.pacer.published(at: .now) }
    }

    /// The privacy switch. Off: the live position, and everything named from it, is dropped at once (the last fix's
    /// place and the place restored from an earlier run too), and a city stands in.
    func switchLocation(_ enabled: Bool) async {
        // Before any suspension: a paced publish running meanwhile must find no position to send.
        if !enabled { forgetPositions() }
        await location.setLocationEnabled(enabled)
        guard !enabled else { return }
        shown.permission = await location.permission
        if publishLocation() { shown.pacer.published(at: .now) }
    }

    /// Drops the live position and everything named from it (the last fix's place, the place restored from an
    /// earlier run, Nominatim's names); a city stands in.
    func forgetPositions() {
        shown.lastFix = nil
        shown.restored = nil
        shown.onlineNames.removeAll()
        if shown.live?.fix != nil || shown.live?.standIn == .restored { shown.live = standIn() }
    }

    /// What stands in while no source gives a position: the first there is of the place a source named last in this
    /// run, `fallback_city`, the place an earlier run named last, the first saved city (`StandIn`). The two named
    /// from positions only while location is on.
    func standIn() -> LocationUpdate? {
        if state.locationEnabled, var last = shown.lastFix {
            last.standIn = .lastFix
            return last
        }
        if let city = shown.fallbackCity { return .city(city, as: .fallback) }
        if state.locationEnabled, let place = shown.restored { return .city(place, as: .restored) }
        return state.saved.first.map { .city($0, as: .saved) }
    }

    /// Chooses the stand-in again after what it is chosen from changed (the saved cities, `fallback_city`), unless a
    /// live position is shown.
    func standInChanged() {
        if let live = shown.live, live.standIn == nil { return }
        shown.live = standIn()
        locationChanged()
    }

    /// The location shown: the selected city, else the machine's own (or what stands in for it).
    var effective: LocationUpdate? {
        state.selected.map { .city($0, as: .selected) } ?? shown.live
    }

    /// The location shown, with Nominatim's name for a live position where there is one.
    var named: LocationUpdate? {
        guard var update = effective else { return nil }
        if update.fix != nil, let online = shown.onlineNames[update.place.id] { update.place = online }
        return update
    }

    /// The `LOCATION` object for `update`: exact, or with every field derived from a fix made coarse (for peers that
    /// get city-level positions, who are told how to get exact ones; MQTT's coarse objects carry no such hint).
    func locationMessage(_ update: LocationUpdate, coarse: Bool = false, hint: Bool = true) -> JSONValue {
        let position = update.fix.map { fix in
            coarse ? CoarseLocation(fix: fix, distance: update.distance) : .exact(fix: fix, distance: update.distance)
        }
        let centre = update.place.coordinate
        return ProtocolMessage.location(
            place: update.place,
            coordinate: position?.coordinate ?? (coarse ? centre.rounded(toDecimals: CoarseLocation.decimals) : centre),
            fix: position, source: update.source, standIn: update.standIn, permission: shown.permission,
            precise: !coarse, preciseHint: hint ? shown.exactPositionsHint : nil,
            distinctName: citySearch.distinctName(update.place))
    }

    /// LOCATION with no place: replaces a published one when nothing may or can be shown (location switched off
    /// with no fallback city).
    func noLocationMessage() -> JSONValue {
        ProtocolMessage.noLocation(permission: shown.permission)
    }

    /// Publishes the location shown, unless it is what was published last; returns whether it published.
    @discardableResult
    func publishLocation() -> Bool {
        recordLastPlace()
        guard let update = named else {
            // Withdraw a published position rather than leave it in every later snapshot.
            guard shown.published != nil, shown.published != noLocationMessage() else { return false }
            shown.published = noLocationMessage()
            server?.publish(noLocationMessage())
            mqtt.publisher?.publish("location", noLocationMessage())
            mqtt.placeID = nil
            forgetMQTTData()
            return true
        }
        let fix = update.fix
        let message = locationMessage(update)
        let changed = message != shown.published
        if changed {
            shown.published = message
            server?.publish(
                message, others: configuration.roundCoordinatesForOthers ? locationMessage(update, coarse: true) : nil)
            // Coarse unless `precise`: the outbox drops a coarse object equal to the one before.
            mqtt.publisher?.publish(
                "location",
                configuration.mqtt.precise ? message : locationMessage(update, coarse: true, hint: false))
        }
        if mqtt.placeID != update.place.id {
            mqtt.placeID = update.place.id
            forgetMQTTData()
        }
        status.place = update.place.displayName
        status.source =
            switch update.standIn {
            case nil: fix.map { "\($0.source.rawValue) \($0.mode.title)" } ?? update.source
            case .lastFix?: "no fix, last from \(update.source)"
            case let standIn?: standIn.title
            }
        if shown.placeID != update.place.id {
            shown.placeID = update.place.id
            logger.info("place", ["name": update.place.displayName, "source": update.source])
            if let pipeline, !stopping {
                // The fetch for the place before is cancelled if it has not begun, and this one waits for it, so a
                // quick change from A to B always ends with B's data being fetched, never A's.
                let place = update.place
                let previous = shown.placeFetch
                previous?.cancel()
                shown.placeFetch = Task {
                    await previous?.value
                    guard !Task.isCancelled else { return }
                    await pipeline.fetchAllData(for: place)
                }
            }
            if let fix, let nominatim, shown.onlineNames[update.place.id] == nil {
                let place = update.place
                Task { await self.nameOnline(place, at: fix.coordinate, with: nominatim) }
            }
        }
        updateStatus()
        return changed
    }

    /// Online reverse geocoding (`online_reverse_geocoding`): Nominatim's name for the position replaces the
    /// offline one in `LOCATION` (the offline place still keys the data and the cache); without an answer the
    /// offline name stays.
    func nameOnline(_ place: Place, at coordinate: Coordinate, with nominatim: NominatimClient) async {
        do {
            guard let online = try await nominatim.place(at: coordinate), !online.name.isEmpty,
                state.locationEnabled
            else { return }
            var named = place
            named.name = online.name
            named.admin1 = online.admin1 ?? place.admin1
            if !online.country.isEmpty { named.country = online.country }
            if !online.countryCode.isEmpty { named.countryCode = online.countryCode }
            if shown.onlineNames.count > 256 { shown.onlineNames.removeAll() }
            shown.onlineNames[place.id] = named
            logger.info("place.online", ["offline": place.displayName, "online": named.displayName])
            if effective?.place.id == place.id { publishLocation() }
        } catch {
            logger.notice("place.online_failed", ["code": error.code.rawValue, "reason": error.reason])
        }
    }
}
