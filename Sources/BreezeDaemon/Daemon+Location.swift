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
            shown.permission = permission
            server?.publish(ProtocolMessage.permission(permission))
            mqtt.publisher?.publish("permission", ProtocolMessage.permission(permission))
            logger.info("permission", ["state": permission.name, "message": permission.message])
            locationChanged()
        case .position(let update):
            // A fix still on its way when location was switched off is dropped: nothing derived from it is kept.
            guard state.locationEnabled else { return }
            shown.live = update
            locationChanged()
        case .fixLost:
            break
        case .handover(let from, let to, let reason):
            logger.notice("location.handover", ["from": from?.rawValue ?? "none", "to": to.rawValue, "reason": reason])
        case .fallback(let place):
            shown.live = place.map { LocationUpdate(place: $0, distance: 0, fix: nil) }
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

    /// The privacy switch. Off: the live position, and everything named from it, is dropped at once, and the
    /// fallback stands in without the last place named (that too was derived from the position).
    func switchLocation(_ enabled: Bool) async {
        await location.setFallback(Self.fallback(configuration, state, index))
        await location.setLocationEnabled(enabled)
        guard !enabled else { return }
        // At once, not when the service's events arrive: the service has already dropped the live fix for the
        // fallback; nothing named from the position is kept here either.
        shown.permission = await location.permission
        let current = await location.current
        shown.live = current?.fix == nil ? current : nil
        shown.onlineNames.removeAll()
        if publishLocation() { shown.pacer.published(at: .now) }
    }

    /// The location shown: the selected city, else the machine's own.
    var effective: LocationUpdate? {
        state.selected.map { LocationUpdate(place: $0, distance: 0, fix: nil) } ?? shown.live
    }

    /// The location shown, with Nominatim's name for a live position where there is one.
    var named: LocationUpdate? {
        guard var update = effective else { return nil }
        if update.fix != nil, let online = shown.onlineNames[update.place.id] { update.place = online }
        return update
    }

    /// The `LOCATION` object for `update`: exact, or with every field derived from a live fix made coarse (for peers
    /// that get city-level positions).
    func locationMessage(_ update: LocationUpdate, coarse: Bool = false) -> JSONValue {
        guard let fix = update.fix else {
            let centre = update.place.coordinate
            return ProtocolMessage.location(
                place: update.place, coordinate: coarse ? centre.rounded(toDecimals: CoarseLocation.decimals) : centre,
                accuracy: nil, source: update.source, receivedAt: nil, distance: nil, permission: shown.permission)
        }
        let position =
            coarse
            ? CoarseLocation(fix: fix, distance: update.distance)
            : CoarseLocation.exact(fix: fix, distance: update.distance)
        return ProtocolMessage.location(
            place: update.place, coordinate: position.coordinate, accuracy: position.accuracy, source: update.source,
            receivedAt: position.time, distance: position.distance, permission: shown.permission)
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
                "location", configuration.mqtt.precise ? message : locationMessage(update, coarse: true))
        }
        if mqtt.placeID != update.place.id {
            mqtt.placeID = update.place.id
            forgetMQTTData()
        }
        status.place = update.place.displayName
        status.source = fix.map { "\($0.source.rawValue) \($0.mode.title)" } ?? update.source
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
