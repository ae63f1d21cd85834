public import BreezeCore
public import BreezePlaces

/// The one place that decides where the machine is.
///
/// It runs the location-permission state machine over what the sources report, names live positions through the
/// places index when they move past the movement threshold (so that GPS jitter does not re-trigger naming and data
/// fetching), and falls back to the user's selected or saved city when no source gives positions.
public actor LocationService {
    public nonisolated let events: AsyncStream<LocationServiceEvent>
    private let continuation: AsyncStream<LocationServiceEvent>.Continuation

    private let sources: [any LocationSource]
    private let geocoder: ReverseGeocoder
    private var machine: LocationPermissionMachine
    private var fallback: Place?
    /// Metres a position must move before it is named again.
    public let movementThreshold: Double
    /// How long a source may go without a fix before its position counts as lost.
    public let fixTimeout: Duration

    public private(set) var current: LocationUpdate?
    private var lastNamed: Coordinate?
    private var timerGeneration = 0
    private var fixTimer: Task<Void, Never>?

    public var permission: LocationPermission { machine.state }

    public init(
        sources: [any LocationSource], geocoder: ReverseGeocoder, fallback: Place? = nil,
        movementThreshold: Double = 250, fixTimeout: Duration = .seconds(30), locationEnabled: Bool = true
    ) {
        self.sources = sources
        self.geocoder = geocoder
        self.fallback = fallback
        self.movementThreshold = movementThreshold
        self.fixTimeout = fixTimeout
        self.machine = LocationPermissionMachine(enabled: locationEnabled)
        (events, continuation) = AsyncStream.makeStream(of: LocationServiceEvent.self, bufferingPolicy: .unbounded)
    }

    /// Runs until cancelled: listens to every source, then stops them.
    public func run() async {
        continuation.yield(.permission(machine.state))
        useFallback()
        defer { fixTimer?.cancel() }
        await withTaskGroup(of: Void.self) { group in
            for source in sources {
                group.addTask {
                    await withTaskCancellationHandler {
                        for await event in source.events() {
                            await self.handle(event, from: source.kind)
                        }
                    } onCancel: {
                        source.stop()
                    }
                }
            }
            // With no sources (or once they end) the service still answers the switch and the fallback city.
            group.addTask {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(86_400)) }
            }
        }
        continuation.finish()
    }

    /// The privacy switch: off ignores every fix and uses the fallback city; on resumes.
    public func setLocationEnabled(_ enabled: Bool) {
        apply(machine.handle(enabled ? .switchedOn : .switchedOff))
    }

    /// The city to use while no source gives positions.
    public func setFallback(_ place: Place?) {
        fallback = place
        if !machine.state.isAuthorized { useFallback() }
    }

    func handle(_ event: LocationSourceEvent, from kind: LocationSourceKind) {
        switch event {
        case .connecting:
            apply(machine.handle(.requestStarted(kind)))
        case .connected:
            apply(machine.handle(.sourceConnected(kind)))
            armFixTimer(for: kind)
        case .noFix:
            break  // the fix timer decides when silence becomes "no fix"
        case .fix(let fix):
            apply(machine.handle(.fixReceived(kind)))
            guard machine.state == .authorized(kind) else { return }
            armFixTimer(for: kind)
            name(fix)
        case .denied(let reason):
            timerGeneration += 1
            apply(machine.handle(.accessDenied(kind, reason)))
        case .restricted(let reason):
            timerGeneration += 1
            apply(machine.handle(.accessRestricted(kind, reason)))
        case .lost(let reason):
            timerGeneration += 1
            apply(machine.handle(.sourceLost(kind, reason)))
        }
    }

    private func name(_ fix: LocationFix) {
        if let lastNamed, lastNamed.distance(to: fix.coordinate) < movementThreshold { return }
        guard let match = geocoder.place(for: fix.coordinate) else { return }
        lastNamed = fix.coordinate
        let update = LocationUpdate(place: match.place, distance: match.distance, fix: fix)
        current = update
        continuation.yield(.position(update))
    }

    private func apply(_ actions: [LocationPermissionAction]) {
        for action in actions {
            switch action {
            case .announce(let state):
                continuation.yield(.permission(state))
            case .useFallbackLocation:
                if let source = current?.fix?.source { continuation.yield(.fixLost(source)) }
                useFallback()
            case .stopSources:
                timerGeneration += 1
            case .useLiveLocation, .startSources, .scheduleRetry:
                break  // sources keep running and retry by themselves; their fixes count again once authorized
            }
        }
    }

    private func useFallback() {
        lastNamed = nil
        current = fallback.map { LocationUpdate(place: $0, distance: 0, fix: nil) }
        continuation.yield(.fallback(fallback))
    }

    /// (Re)starts the one-shot timer that turns a silent source into "no fix". One timer at a time: re-arming
    /// cancels the previous one.
    private func armFixTimer(for kind: LocationSourceKind) {
        timerGeneration += 1
        let generation = timerGeneration
        let timeout = fixTimeout
        fixTimer?.cancel()
        fixTimer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.fixTimerFired(generation: generation, kind: kind)
        }
    }

    private func fixTimerFired(generation: Int, kind: LocationSourceKind) {
        guard generation == timerGeneration else { return }
        let seconds = Int(fixTimeout.components.seconds)
        apply(machine.handle(.timedOut(kind, seconds: seconds)))
    }
}
