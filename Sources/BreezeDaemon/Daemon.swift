import BreezeCore
public import BreezeSystem
import BreezeData
import BreezeGPSD
import BreezeGeoClue
import BreezeLocation
import BreezeMQTT
import BreezePlaces
import BreezeProtocol
import BreezeServer
import BreezeWeb
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// breezed: the location service, the places index, the fetchAllData pipeline and the socket server, wired.
public actor Daemon {
    public static let release = "0.1.0"

    let configuration: DaemonConfiguration
    let logger: Logger
    let systemd: Systemd
    let index: PlacesIndex
    let geocoder: ReverseGeocoder
    let citySearch: CitySearch
    let store: StateStore
    var state: UserState
    let location: LocationService
    let pipeline: DataPipeline?
    let geocoding: GeocodingClient?
    let nominatim: NominatimClient?
    /// nil until `run()` starts it (requests answered in process before then publish nothing).
    var server: SocketServer?
    let publisher: Publisher
    /// The broker link, when `--mqtt` or `[mqtt] url` is set.
    let mqtt: MQTTPublisher?
    /// The link's changes of state, from its thread to this actor.
    let mqttStates: AsyncStream<MQTTLink.State>
    var mqttStatus: String?
    /// The place whose data goes to the broker: the one shown, nil while none is.
    var mqttPlaceID: Int?

    var permission = LocationPermission.notDetermined
    /// The machine's own location (live or fallback); the selection, when there is one, is shown instead.
    var live: LocationUpdate?
    var publishedPlaceID: Int?
    /// Asks the pipeline for the data of the place last published; replaced (and cancelled) when the place changes.
    var placeFetch: Task<Void, Never>?
    /// Set on SIGTERM: no new fetch starts once the pipeline is being stopped.
    var stopping = false
    /// The last LOCATION published (as trusted peers see it), so that an unchanged one is not sent again.
    var publishedLocation: JSONValue?
    /// LOCATION at most four times a second, however fast positions or permission changes arrive.
    var locationPacer = PublishPacer(interval: .milliseconds(250))
    /// The requests that only read, answered without the actor.
    let reads: ReadOnlyRequests
    /// Nominatim's names for places named offline, by the offline place's id.
    var onlineNames: [Int: Place] = [:]
    /// The `refresh` requests with `wait` not yet answered, by a number of their own.
    var refreshWaits: [Int: RefreshWait] = [:]
    var nextRefreshWait = 0
    var statusLine = (place: "", source: "", aqi: "")
    var lastStatus = ""

    /// Loads the index and the state; throws a message for the log when the daemon cannot start.
    /// `threadLoan` lends gpsd's reader thread to the executor the daemon's tasks run on (`ThreadLoan`).
    public init(
        configuration: DaemonConfiguration, logger: Logger, systemd: Systemd = Systemd(), threadLoan: ThreadLoan = .none
    ) throws(StartError) {
        self.configuration = configuration
        self.logger = logger
        self.systemd = systemd
        guard let indexPath = configuration.placesIndex ?? PlacesIndexLocation.find() else {
            throw StartError("no places index found; looked in \(PlacesIndexLocation.candidates().joined(separator: ", "))")
        }
        do {
            index = try PlacesIndex(path: indexPath)
        } catch {
            throw StartError("cannot open the places index \(indexPath): \(error)")
        }
        geocoder = ReverseGeocoder(index: index)
        citySearch = CitySearch(index: index)
        store = StateStore(folder: configuration.stateDirectory)
        let loaded = store.load()
        state = loaded.state
        if let problem = loaded.problem { logger.warning("state.corrupt", ["problem": problem]) }

        var sources: [any LocationSource] = []
        if let address = configuration.gpsd {
            // A receiver at rest repeats its position, up to many times a second: a repeat goes on to the location
            // service once a second (a quarter of the fix timeout, if shorter), often enough for the timeout.
            let fixTimeout = Duration.seconds(configuration.fixTimeout)
            sources.append(GPSDSource(
                address: address, unchangedFixInterval: min(.seconds(1), fixTimeout / 4), threadLoan: threadLoan))
        }
        if configuration.geoclue {
            var geoclue = GeoClueSource.Configuration()
            geoclue.agent = configuration.geoclueAgent
            geoclue.accuracyLevel = UInt32(configuration.geoclueAccuracy)
            geoclue.distanceThreshold = UInt32(min(configuration.movementThreshold, 10_000) / 2)
            sources.append(GeoClueSource(configuration: geoclue))
        }
        let fallback = Self.fallback(configuration, state, citySearch, index)
        location = LocationService(
            sources: sources, geocoder: geocoder, fallback: fallback, movementThreshold: configuration.movementThreshold,
            fixTimeout: .seconds(configuration.fixTimeout), locationEnabled: state.locationEnabled)

        let publisher = Publisher()
        self.publisher = publisher
        let (mqttStates, mqttContinuation) = AsyncStream<MQTTLink.State>.makeStream(bufferingPolicy: .bufferingNewest(8))
        self.mqttStates = mqttStates
        mqtt = try configuration.mqtt.brokerWithPassword().map { broker in
            MQTTPublisher(settings: configuration.mqtt, broker: broker) { mqttContinuation.yield($0) }
        }
        if configuration.offline {
            pipeline = nil
            geocoding = nil
            nominatim = nil
        } else {
            let budget = RequestBudget(limits: .init(
                perMinute: max(10, configuration.requestsPerHour / 8), perHour: configuration.requestsPerHour,
                perDay: configuration.requestsPerHour * 4))
            let http = HTTPClient(
                userAgent: "breezed/\(Self.release) (Linux location daemon)", budget: budget, caFile: configuration.caFile)
            let endpoints = configuration.endpoints
            let key = Self.googleKey(configuration, logger)
            var pipelineConfiguration = DataPipeline.Configuration()
            pipelineConfiguration.freshness = configuration.refresh
            let log = logger
            pipeline = DataPipeline(
                sources: .web(http: http, endpoints: endpoints, googlePollenKey: key),
                cache: DataCache(folder: configuration.cacheDirectory), configuration: pipelineConfiguration,
                log: { log.notice($0) }, publish: { publisher.send($0) })
            // Online search answers people typing: a few at once, and a budget of its own so that a flood of
            // searches neither queues without end nor spends the data's requests.
            let searchBudget = RequestBudget(limits: .init(perMinute: 60, perHour: 1_000, perDay: 5_000))
            geocoding = GeocodingClient(
                http: HTTPClient(
                    userAgent: "breezed/\(Self.release)", timeout: 4, deadline: 8, budget: searchBudget,
                    maximumInFlight: 2, caFile: configuration.caFile),
                base: endpoints.geocoding)
            nominatim = configuration.onlineReverseGeocoding
                ? NominatimClient(
                    http: HTTPClient(
                        userAgent: "breezed/\(Self.release) (Linux location daemon)", caFile: configuration.caFile),
                    base: endpoints.nominatim)
                : nil
        }
        reads = ReadOnlyRequests(index: index, geocoding: geocoding, saved: state.saved)
    }

    /// Runs until SIGTERM or SIGINT; SIGHUP reloads the configuration. Returns the exit status.
    public func run(reload: @escaping @Sendable () -> Result<DaemonConfiguration, ConfigurationError>) async -> Int32 {
        let signals = SignalStream.make([SIGTERM, SIGINT, SIGHUP])
        let listener: UnixListener
        let inherited = Systemd.listenDescriptor()
        do {
            if let fd = inherited {
                listener = try UnixListener(inheritedDescriptor: fd)
                logger.info("socket.inherited", ["fd": fd])
            } else {
                let folder = parentFolder(of: configuration.socketPath)
                try? AtomicFile.makeFolder(folder)
                listener = try UnixListener(path: configuration.socketPath, group: configuration.socketGroupID)
                logger.info("socket.listening", ["path": configuration.socketPath])
            }
        } catch {
            logger.error("socket.failed", ["path": configuration.socketPath, "error": error])
            return 1
        }
        var serverConfiguration = SocketServer.Configuration()
        serverConfiguration.release = Self.release
        serverConfiguration.maximumClients = configuration.maximumClients
        // Quiet again after requests: the index pages they read go back too (searches touch megabytes of it).
        serverConfiguration.onIdle = { [index] in index.releaseResidentPages() }
        // Without a configured group, the daemon's own group is trusted ("breeze" under the unit), unless that is root's.
        serverConfiguration.trust = TrustPolicy(
            groupID: configuration.socketGroupID ?? (getgid() != 0 ? getgid() : nil))
        let server: SocketServer
        do {
            server = try SocketServer(
                listener: listener, configuration: serverConfiguration,
                handler: { [self] request, peer in await self.handle(request, from: peer) },
                immediate: { [reads] request, _ in reads.answerNow(request) })
        } catch {
            logger.error("socket.failed", ["path": configuration.socketPath, "error": error])
            return 1
        }
        self.server = server
        server.start()
        publisher.attach(server) { [self] update, publishedAt in
            Task { await self.dataChanged(update, publishedAt: publishedAt) }
        }
        publishInitialData()
        if let mqtt {
            server.setVersionMembers([("mqtt", mqtt.statusObject(.connecting))])
            mqttStatus = "MQTT connecting"
            mqtt.start()
            logger.info("mqtt.starting", [
                "broker": mqtt.link.configuration.broker.description, "node": mqtt.node, "topics": mqtt.base,
            ])
        }
        // Starting read the index (its header, the fallback city's name): its pages go back, as after requests.
        index.releaseResidentPages()
        systemd.notify("READY=1")
        logger.notice("daemon.ready", [
            "places": index.count, "gpsd": configuration.gpsd?.description ?? "off",
            "data": configuration.offline ? "offline" : configuration.endpoints.airQuality.absoluteString,
        ])
        updateStatus()

        // The long-running parts, each a child task owned here: all are cancelled, and awaited, before the state is
        // saved and the socket file removed.
        await withDiscardingTaskGroup { group in
            group.addTask { [location] in await location.run() }
            group.addTask { [self, location] in
                for await event in location.events { await self.locationEvent(event) }
            }
            group.addTask { [location, logger] in await Self.logRejections(location.notices, logger) }
            group.addTask { [self, mqttStates] in
                for await state in mqttStates { await self.mqttStateChanged(state) }
            }
            group.addTask { [systemd] in
                guard let interval = systemd.watchdogInterval else { return }
                while (try? await Task.sleep(for: interval)) != nil { systemd.notify("WATCHDOG=1") }
            }
            let stopSignal = await waitForStop(signals, reload: reload)
            // In reverse: no more data fetched, no more clients heard, then the location sources.
            logger.notice("daemon.stopping", ["signal": stopSignal == SIGINT ? "INT" : "TERM"])
            systemd.notify("STOPPING=1")
            stopping = true
            placeFetch?.cancel()
            await placeFetch?.value
            await pipeline?.stop()
            for key in Array(refreshWaits.keys) { endRefreshWait(key, expired: true) }
            server.stop()
            // `offline` on the availability topic, then a clean disconnect (the broker drops the last will).
            await mqtt?.stop()
            group.cancelAll()
        }
        saveState()
        // The socket thread sends its goodbyes before the process ends.
        await server.stopped()
        // Only the socket this daemon made: a second daemon refused at start never touches the first one's.
        listener.removeSocketFile()
        logger.notice("daemon.stopped")
        return 0
    }

    /// Answers SIGHUP with a reload until SIGTERM or SIGINT arrives; returns which (SIGTERM if the stream ends).
    private func waitForStop(
        _ signals: AsyncStream<Int32>, reload: @Sendable () -> Result<DaemonConfiguration, ConfigurationError>
    ) async -> Int32 {
        for await signal in signals {
            guard signal == SIGHUP else { return signal }
            switch reload() {
            case .success(let newConfiguration): applyReload(newConfiguration)
            case .failure(let error):
                logger.error("config.reload_failed", ["error": error, "kept": "the running configuration"])
            }
        }
        return SIGTERM
    }

    /// Logs the fixes the location service rejected: a broken gpsd can send nothing else, so one line per interval,
    /// with how many were left out since.
    private static func logRejections(_ notices: AsyncStream<LocationNotice>, _ logger: Logger) async {
        let interval = Duration.seconds(10)
        var lastLogged: ContinuousClock.Instant?
        var suppressed = 0
        for await notice in notices {
            let now = ContinuousClock.now
            if let lastLogged, now - lastLogged < interval {
                suppressed += 1
                continue
            }
            lastLogged = now
            logger.warning("location.rejected", [
                "source": notice.source.rawValue, "reason": notice.message, "suppressed": suppressed,
            ])
            suppressed = 0
        }
    }

    // MARK: Location

    func locationEvent(_ event: LocationServiceEvent) {
        switch event {
        case .permission(let permission):
            self.permission = permission
            server?.publish(ProtocolMessage.permission(permission))
            mqtt?.publish("permission", ProtocolMessage.permission(permission))
            logger.info("permission", ["state": permission.name, "message": permission.message])
            locationChanged()
        case .position(let update):
            // A fix still on its way when location was switched off is dropped: nothing derived from it is kept.
            guard state.locationEnabled else { return }
            live = update
            locationChanged()
        case .fixLost:
            break
        case .handover(let from, let to, let reason):
            logger.notice("location.handover", ["from": from?.rawValue ?? "none", "to": to.rawValue, "reason": reason])
        case .fallback(let place):
            live = place.map { LocationUpdate(place: $0, distance: 0, fix: nil) }
            locationChanged()
        }
    }

    /// Publishes the location now, or at the end of the pacer's interval when one went out just before.
    func locationChanged() {
        switch locationPacer.changed(at: .now) {
        case .now:
            if publishLocation() { locationPacer.published(at: .now) }
        case .after(let delay):
            Task { [self] in
                try? await Task.sleep(for: delay)
                self.publishPacedLocation()
            }
        case .alreadyScheduled:
            break
        }
    }

    private func publishPacedLocation() {
        locationPacer.fired()
        if publishLocation() { locationPacer.published(at: .now) }
    }

    /// The privacy switch. Off: the live position, and everything named from it, is dropped at once, and the
    /// fallback stands in without the last place named (that too was derived from the position).
    func switchLocation(_ enabled: Bool) async {
        await location.setFallback(Self.fallback(configuration, state, citySearch, index))
        await location.setLocationEnabled(enabled)
        guard !enabled else { return }
        // At once, not when the service's events arrive: the service has already dropped the live fix for the
        // fallback; nothing named from the position is kept here either.
        permission = await location.permission
        let current = await location.current
        live = current?.fix == nil ? current : nil
        onlineNames.removeAll()
        if publishLocation() { locationPacer.published(at: .now) }
    }

    /// The location shown: the selected city, else the machine's own.
    var effective: LocationUpdate? {
        state.selected.map { LocationUpdate(place: $0, distance: 0, fix: nil) } ?? live
    }

    /// The location shown, with Nominatim's name for a live position where there is one.
    var named: LocationUpdate? {
        guard var update = effective else { return nil }
        if update.fix != nil, let online = onlineNames[update.place.id] { update.place = online }
        return update
    }

    /// The `LOCATION` object for `update`: exact, or with every field derived from a live fix made coarse (for peers
    /// that get city-level positions).
    func locationMessage(_ update: LocationUpdate, coarse: Bool = false) -> JSONValue {
        guard let fix = update.fix else {
            let centre = update.place.coordinate
            return ProtocolMessage.location(
                place: update.place, coordinate: coarse ? centre.rounded(toDecimals: CoarseLocation.decimals) : centre,
                accuracy: nil, source: update.source, receivedAt: nil, distance: nil, permission: permission)
        }
        let shown = coarse ? CoarseLocation(fix: fix, distance: update.distance) : CoarseLocation.exact(fix: fix, distance: update.distance)
        return ProtocolMessage.location(
            place: update.place, coordinate: shown.coordinate, accuracy: shown.accuracy, source: update.source,
            receivedAt: shown.time, distance: shown.distance, permission: permission)
    }

    /// LOCATION with no place: replaces a published one when nothing may or can be shown (location switched off
    /// with no fallback city).
    func noLocationMessage() -> JSONValue {
        ProtocolMessage.noLocation(permission: permission)
    }

    /// Publishes the location shown, unless it is what was published last; returns whether it published.
    @discardableResult
    func publishLocation() -> Bool {
        recordLastPlace()
        guard let update = named else {
            // Withdraw a published position rather than leave it in every later snapshot.
            guard publishedLocation != nil, publishedLocation != noLocationMessage() else { return false }
            publishedLocation = noLocationMessage()
            server?.publish(noLocationMessage())
            mqtt?.publish("location", noLocationMessage())
            mqttPlaceID = nil
            forgetMQTTData()
            return true
        }
        let fix = update.fix
        let message = locationMessage(update)
        let changed = message != publishedLocation
        if changed {
            publishedLocation = message
            server?.publish(
                message, others: configuration.roundCoordinatesForOthers ? locationMessage(update, coarse: true) : nil)
            // Coarse unless `precise`: the outbox drops a coarse object equal to the one before.
            mqtt?.publish("location", configuration.mqtt.precise ? message : locationMessage(update, coarse: true))
        }
        if mqttPlaceID != update.place.id {
            mqttPlaceID = update.place.id
            forgetMQTTData()
        }
        statusLine.place = update.place.displayName
        statusLine.source = fix.map { "\($0.source.rawValue) \($0.mode.title)" } ?? update.source
        if publishedPlaceID != update.place.id {
            publishedPlaceID = update.place.id
            logger.info("place", ["name": update.place.displayName, "source": update.source])
            if let pipeline, !stopping {
                // The fetch for the place before is cancelled if it has not begun, and this one waits for it, so a
                // quick change from A to B always ends with B's data being fetched, never A's.
                let place = update.place
                let previous = placeFetch
                previous?.cancel()
                placeFetch = Task {
                    await previous?.value
                    guard !Task.isCancelled else { return }
                    await pipeline.fetchAllData(for: place)
                }
            }
            if let fix, let nominatim, onlineNames[update.place.id] == nil {
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
            if onlineNames.count > 256 { onlineNames.removeAll() }
            onlineNames[place.id] = named
            logger.info("place.online", ["offline": place.displayName, "online": named.displayName])
            if effective?.place.id == place.id { publishLocation() }
        } catch {
            logger.notice("place.online_failed", ["code": error.code.rawValue, "reason": error.reason])
        }
    }

    // MARK: Data

    func publishInitialData() {
        for dataset in Dataset.allCases {
            server?.publish(configuration.offline
                ? DatasetMessage.empty(dataset, status: .offline, reason: "web requests are off (--offline)")
                : DatasetMessage.empty(dataset, status: .loading))
        }
    }

    func dataChanged(_ update: DataUpdate, publishedAt: Double) {
        for key in Array(refreshWaits.keys) {
            refreshWaits[key]!.record(update, publishedAt: publishedAt)
            if refreshWaits[key]!.isComplete { endRefreshWait(key) }
        }
        // Only the data of the place shown: a late answer for a place left (perhaps one named from a live position
        // since switched off) is not published.
        if let mqtt, update.place.id == mqttPlaceID {
            mqtt.dataset(update.dataset, DatasetMessage.message(
                update.dataset, status: update.status, place: update.place, report: update.report,
                fetchedAt: update.fetchedAt, now: publishedAt))
        }
        if let state = update.state(as: AirQualityReport.self) {
            statusLine.aqi = state.report?.usAQI.flatMap { Int(exactly: $0.rounded()) }.map { "AQI \($0)" } ?? ""
            updateStatus()
        }
    }

    /// Tells systemd the one-line status when it changed (not on every position).
    func updateStatus() {
        let parts = [statusLine.place, statusLine.source, statusLine.aqi].filter { !$0.isEmpty }
        let status = "STATUS=" + (parts.isEmpty ? permission.message : parts.joined(separator: " · "))
            + (mqttStatus.map { " · " + $0 } ?? "")
        guard status != lastStatus else { return }
        lastStatus = status
        systemd.notify(status)
    }

    // MARK: MQTT

    /// The retained data of the place left is replaced at once (by `loading`), not kept until the next place's
    /// arrives: after location is switched off, the broker keeps nothing named from the live position.
    func forgetMQTTData() {
        guard let mqtt else { return }
        for dataset in Dataset.allCases {
            mqtt.publish(dataset.rawValue, configuration.offline
                ? DatasetMessage.empty(dataset, status: .offline, reason: "web requests are off (--offline)")
                : DatasetMessage.empty(dataset, status: .loading))
        }
    }

    func mqttStateChanged(_ state: MQTTLink.State) {
        guard let mqtt else { return }
        server?.setVersionMembers([("mqtt", mqtt.statusObject(state))])
        switch state {
        case .connected:
            mqttStatus = "MQTT connected"
            logger.notice("mqtt.connected", ["broker": mqtt.link.configuration.broker.description])
        case .unreachable(let reason):
            mqttStatus = "MQTT broker unreachable: \(reason)"
            logger.warning("mqtt.unreachable", ["broker": mqtt.link.configuration.broker.description, "reason": reason])
        case .connecting:
            mqttStatus = "MQTT connecting"
        case .stopped:
            mqttStatus = nil
        }
        updateStatus()
    }

    // MARK: State

    /// Remembers the place of the live position (the fallback's last resort while location is on).
    func recordLastPlace() {
        guard state.locationEnabled, let update = live, update.fix != nil, state.lastPlace?.id != update.place.id
        else { return }
        state.lastPlace = update.place
        saveState()
    }

    func saveState() {
        do {
            try store.save(state)
        } catch {
            logger.error("state.write_failed", ["path": store.path, "error": error])
        }
    }

    func applyReload(_ new: DaemonConfiguration) {
        var changed: [String] = []
        var needsRestart: [String] = []
        if new.logLevel != configuration.logLevel { needsRestart.append("log_level") }
        if new.fallbackCity != configuration.fallbackCity {
            changed.append("fallback_city")
            let fallback = Self.fallback(new, state, citySearch, index)
            Task { await location.setFallback(fallback) }
        }
        var others = new
        var current = configuration
        others.fallbackCity = nil
        current.fallbackCity = nil
        others.logLevel = current.logLevel
        if others != current { needsRestart.append("other settings") }
        logger.notice("config.reloaded", [
            "applied": changed.isEmpty ? "none" : changed.joined(separator: ","),
            "restart_needed_for": needsRestart.isEmpty ? "none" : needsRestart.joined(separator: ","),
        ])
    }

    // MARK: Helpers

    static func fallback(_ configuration: DaemonConfiguration, _ state: UserState, _ search: CitySearch, _ index: PlacesIndex) -> Place? {
        if let city = configuration.fallbackCity {
            if let id = Int(city), let position = index.placeIndex(geonameID: id), let place = index.place(at: position) {
                return place
            }
            if let match = search.search(city, limit: 1).first { return match.place }
        }
        // The last place named came from the live position: while location is off, it is not shown.
        return (state.locationEnabled ? state.lastPlace : nil) ?? state.saved.first
    }

    static func googleKey(_ configuration: DaemonConfiguration, _ logger: Logger) -> String? {
        if let key = configuration.googlePollenKey { return key }
        guard let file = configuration.googlePollenKeyFile else { return nil }
        guard let data = FileManager.default.contents(atPath: file),
            let key = String(data: data, encoding: .utf8)?.trimmingWhitespaceAndNewlines(), !key.isEmpty
        else {
            logger.warning("pollen.key_unreadable", ["file": file])
            return nil
        }
        return key
    }

}

/// Why the daemon could not start.
public struct StartError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
