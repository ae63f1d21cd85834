import BreezeCore
import BreezeData
import BreezeGPSD
import BreezeGeoClue
import BreezeLocation
import BreezeMQTT
import BreezePlaces
import BreezeProtocol
import BreezeServer
public import BreezeSystem
import BreezeWeb
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// breezed: the location service, the places index, the fetchAllData pipeline and the socket server, wired.
public actor Daemon {

    let configuration: DaemonConfiguration
    let logger: Logger
    let systemd: Systemd
    /// Every timer of the daemon and its services.
    let clock: any ServiceClock
    let store: StateStore
    var state: UserState
    /// The position's owner: the sources and the handovers.
    let location: LocationService
    /// The fetchAllData pipeline (nil with `--offline`) and the updates it publishes, on their way to this actor.
    let data: DataFeed
    let nominatim: NominatimClient?
    /// nil until `run()` starts it (requests answered in process before then publish nothing).
    var server: SocketServer?
    /// The broker, when `--mqtt` or `[mqtt] url` is set.
    var mqtt: MQTTOutput
    /// What the daemon has published of the location, and the place the data is fetched for.
    var shown = ShownLocation()
    /// The requests that only read (and the places index they read), answered without the actor.
    let reads: ReadOnlyRequests
    /// The `refresh` requests with `wait` not yet answered.
    var refreshWaits = RefreshWaits()
    /// The one line systemd shows (`STATUS=`).
    var status = StatusLine()
    /// Set on SIGTERM: no new fetch starts once the pipeline is being stopped.
    var stopping = false

    var pipeline: DataPipeline? { data.pipeline }
    var index: PlacesIndex { reads.index }
    var citySearch: CitySearch { reads.citySearch }

    /// Loads the index and the state; throws a message for the log when the daemon cannot start.
    /// `threadLoan` lends gpsd's reader thread to the executor the daemon's tasks run on (`ThreadLoan`); every
    /// timer waits on `clock`.
    public init(
        configuration: DaemonConfiguration, logger: Logger, systemd: Systemd = Systemd(),
        threadLoan: ThreadLoan = .none,
        clock: any ServiceClock = .system
    ) throws(StartError) {
        self.configuration = configuration
        self.logger = logger
        self.systemd = systemd
        self.clock = clock
        guard let indexPath = configuration.placesIndex ?? PlacesIndexLocation.find() else {
            throw StartError(
                "no places index found; looked in \(PlacesIndexLocation.candidates().joined(separator: ", "))")
        }
        let index: PlacesIndex
        do {
            index = try PlacesIndex(path: indexPath)
        } catch {
            throw StartError("cannot open the places index \(indexPath): \(error)")
        }
        // A change that could not be saved would be lost at the next start: refused before any is taken.
        try Self.requireWritableFolder(configuration.stateDirectory, option: "--state-dir")
        store = StateStore(folder: configuration.stateDirectory)
        let loaded = store.load()
        state = loaded.state
        if let problem = loaded.problem { logger.warning("state.corrupt", ["problem": problem]) }

        var sources: [any LocationSource] = []
        if let address = configuration.gpsd {
            // A receiver at rest repeats its position, up to many times a second: a repeat goes on to the location
            // service once a second (a quarter of the fix timeout, if shorter), often enough for the timeout.
            let fixTimeout = Duration.seconds(configuration.fixTimeout)
            sources.append(
                GPSDSource(
                    address: address, clock: clock, unchangedFixInterval: min(.seconds(1), fixTimeout / 4),
                    threadLoan: threadLoan))
        }
        if configuration.geoclue {
            var geoclue = GeoClueSource.Configuration()
            geoclue.agent = configuration.geoclueAgent
            geoclue.accuracyLevel = UInt32(configuration.geoclueAccuracy)
            geoclue.distanceThreshold = UInt32(min(configuration.movementThreshold, 10_000) / 2)
            geoclue.clock = clock
            sources.append(GeoClueSource(configuration: geoclue))
        }
        shown.fallbackCity = Self.fallbackCity(configuration, index)
        shown.restored = state.locationEnabled ? state.lastPlace : nil
        location = LocationService(
            sources: sources, geocoder: ReverseGeocoder(index: index),
            movementThreshold: configuration.movementThreshold,
            fixTimeout: .seconds(configuration.fixTimeout), locationEnabled: state.locationEnabled, clock: clock)

        // Bounded far beyond what the pipeline publishes for a place (a few states for each dataset): the actor
        // takes them as they come.
        let (dataUpdates, dataContinuation) = AsyncStream<DataUpdate>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let (mqttStates, mqttContinuation) = AsyncStream<MQTTLink.State>.makeStream(
            bufferingPolicy: .bufferingNewest(8))
        mqtt = MQTTOutput(
            publisher: try configuration.mqtt.brokerWithPassword().map { broker in
                MQTTPublisher(settings: configuration.mqtt, broker: broker) { mqttContinuation.yield($0) }
            },
            states: mqttStates)
        let geocoding: GeocodingClient?
        let pipeline: DataPipeline?
        if configuration.offline {
            pipeline = nil
            geocoding = nil
            nominatim = nil
        } else {
            let budget = RequestBudget(
                limits: .init(
                    perMinute: max(10, configuration.requestsPerHour / 8), perHour: configuration.requestsPerHour,
                    perDay: configuration.requestsPerHour * 4))
            let http = HTTPClient(
                userAgent: "breezed/\(Release.version) (Linux location daemon)", budget: budget,
                caFile: configuration.caFile)
            let endpoints = configuration.endpoints
            let key = Self.googleKey(configuration, logger)
            var pipelineConfiguration = DataPipeline.Configuration()
            pipelineConfiguration.freshness = configuration.refresh
            let log = logger
            pipeline = DataPipeline(
                sources: .web(http: http, endpoints: endpoints, googlePollenKey: key),
                cache: DataCache(folder: configuration.cacheDirectory), configuration: pipelineConfiguration,
                clock: clock, log: { log.notice($0) }, publish: { dataContinuation.yield($0) })
            // Online search answers people typing: a few at once, and a budget of its own so that a flood of
            // searches neither queues without end nor spends the data's requests.
            let searchBudget = RequestBudget(limits: .init(perMinute: 60, perHour: 1_000, perDay: 5_000))
            geocoding = GeocodingClient(
                http: HTTPClient(
                    userAgent: "breezed/\(Release.version)", timeout: 4, deadline: 8, budget: searchBudget,
                    maximumInFlight: 2, caFile: configuration.caFile),
                base: endpoints.geocoding)
            nominatim =
                configuration.onlineReverseGeocoding
                ? NominatimClient(
                    http: HTTPClient(
                        userAgent: "breezed/\(Release.version) (Linux location daemon)", caFile: configuration.caFile),
                    base: endpoints.nominatim, clock: clock)
                : nil
        }
        data = DataFeed(pipeline: pipeline, updates: dataUpdates)
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
            logger.error(
                "socket.failed", ["path": configuration.socketPath, "error": error, "hint": Self.byHandHint])
            return 1
        }
        var serverConfiguration = SocketServer.Configuration()
        serverConfiguration.release = Release.version
        serverConfiguration.maximumClients = configuration.maximumClients
        // Quiet again after requests: the index pages they read go back too (searches touch megabytes of it).
        serverConfiguration.onIdle = { [index] in index.releaseResidentPages() }
        // Without a configured group, the daemon's own group is trusted ("breeze" under the unit), unless that is root's.
        let group = configuration.socketGroupID ?? (getgid() != 0 ? getgid() : nil)
        let hint = group.flatMap(DaemonConfiguration.groupName).map(Self.exactPositionsHint)
        serverConfiguration.trust = TrustPolicy(groupID: group, hint: hint)
        if let hint { shown.exactPositionsHint = hint }
        let server: SocketServer
        do {
            server = try SocketServer(
                listener: listener, configuration: serverConfiguration,
                route: { [self] request, peer in self.route(request, peerUID: peer.credentials?.uid) })
        } catch {
            logger.error("socket.failed", ["path": configuration.socketPath, "error": error])
            return 1
        }
        self.server = server
        server.start()
        publishInitialData()
        if let mqtt = mqtt.publisher {
            server.setVersionMembers([("mqtt", mqtt.statusObject(.connecting))])
            status.mqtt = "MQTT connecting"
            mqtt.start()
            logger.info(
                "mqtt.starting",
                [
                    "broker": mqtt.link.configuration.broker.description, "node": mqtt.node, "topics": mqtt.base,
                ])
        }
        // Starting read the index (its header, the fallback city's name): its pages go back, as after requests.
        index.releaseResidentPages()
        await systemd.notifyOnce("READY=1", clock: clock)
        logger.notice(
            "daemon.ready",
            [
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
            group.addTask { [self, updates = data.updates] in
                for await update in updates { await self.dataChanged(update) }
            }
            group.addTask { [self, mqttStates = mqtt.states] in
                for await state in mqttStates { await self.mqttStateChanged(state) }
            }
            group.addTask { [systemd, clock] in
                guard let interval = systemd.watchdogInterval else { return }
                while (try? await clock.sleep(for: interval)) != nil { systemd.notify("WATCHDOG=1") }
            }
            let stopSignal = await waitForStop(signals, reload: reload)
            // In reverse: no more data fetched, no more clients heard, then the location sources.
            logger.notice("daemon.stopping", ["signal": stopSignal == SIGINT ? "INT" : "TERM"])
            await systemd.notifyOnce("STOPPING=1", clock: clock)
            stopping = true
            shown.placeFetch?.cancel()
            await shown.placeFetch?.value
            await pipeline?.stop()
            for key in refreshWaits.keys { endRefreshWait(key, expired: true) }
            server.stop()
            // `offline` on the availability topic, then a clean disconnect (the broker drops the last will).
            await mqtt.publisher?.stop()
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
            logger.warning(
                "location.rejected",
                [
                    "source": notice.source.rawValue, "reason": notice.message, "suppressed": suppressed,
                ])
            suppressed = 0
        }
    }

}

/// Why the daemon could not start.
extension Daemon {
    /// What to do when a default folder cannot be used: run as the service (its units make the folders), or by
    /// hand with folders of one's own.
    static let byHandHint =
        "start the service ('sudo systemctl start breezed.socket breezed'), whose units make its folders, or run by "
        + "hand with --socket, --state-dir and --cache-dir in folders you can write (for example under "
        + "$XDG_RUNTIME_DIR and $HOME)"

    /// Makes `folder` if it is missing and checks that this process may write in it.
    static func requireWritableFolder(_ folder: String, option: String) throws(StartError) {
        do {
            try AtomicFile.makeFolder(folder, mode: 0o750)  // as StateStore makes it
        } catch {
            throw StartError("cannot make the folder \(folder) (\(option)): \(error); \(byHandHint)")
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            let reason = String(cString: strerror(errno))
            throw StartError("cannot write in the folder \(folder) (\(option)): \(reason); \(byHandHint)")
        }
    }
}

public struct StartError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
