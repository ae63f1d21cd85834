public import BreezeCore
public import BreezePlaces

/// The one place that decides where the machine is.
///
/// It runs the location-permission state machine over what the sources report, names live positions through the
/// places index when they move past the movement threshold (so that GPS jitter does not re-trigger naming and data
/// fetching), and says when no source gives positions (`noPosition`): what stands in then is the daemon's to choose.
///
/// Sources are ranked by `LocationSourceKind.rank` (gpsd, then GeoClue): a lower-ranked source's fixes are used only
/// while every higher-ranked one is down or has had no fix for its timeout; a higher-ranked source's fix takes over
/// again at once. Each hand-over is an event with its reason.
public actor LocationService {
    /// What the service decides, for one reader. Bounded: see `LocationEventQueue`.
    public nonisolated let events: AsyncStream<LocationServiceEvent>
    private let continuation: LocationEventQueue
    /// What sources sent that was not used, for the log. The newest `noticeLimit` wait for a reader that is behind.
    public nonisolated let notices: AsyncStream<LocationNotice>
    private let noticeContinuation: AsyncStream<LocationNotice>.Continuation
    /// Sources report a rejection once per stretch of unused reports, so a few are plenty to keep.
    public static let noticeLimit = 16

    private let sources: [any LocationSource]
    private let geocoder: ReverseGeocoder
    private var machine: LocationPermissionMachine
    /// Metres a position must move before it is named again.
    public let movementThreshold: Double
    /// How long a source may go without a fix before its position counts as lost (for GeoClue, which reports only
    /// movement: how long to wait for its first fix).
    public let fixTimeout: Duration
    /// The clock the fix timers read.
    private let clock: any ServiceClock

    public private(set) var current: LocationUpdate?
    /// How many times a position was named through the places index (the rest kept the place named before).
    public private(set) var namings = 0
    private var lastNamed: Coordinate?
    /// The newest fix of each source that is up and has one.
    private var latest: [LocationSourceKind: LocationFix] = [:]
    /// When each source's silence becomes "no fix". A fix moves the deadline; one timer task per source waits for
    /// it, so a source sending many fixes a second does not start a task for each.
    private var fixDeadlines: [LocationSourceKind: ContinuousClock.Instant] = [:]
    private var fixTimers: [LocationSourceKind: Task<Void, Never>] = [:]

    public var permission: LocationPermission { machine.state }

    public init(
        sources: [any LocationSource], geocoder: ReverseGeocoder,
        movementThreshold: Double = 250, fixTimeout: Duration = .seconds(30), locationEnabled: Bool = true,
        clock: any ServiceClock = .system
    ) {
        self.clock = clock
        self.sources = sources
        self.geocoder = geocoder
        self.movementThreshold = movementThreshold
        self.fixTimeout = fixTimeout
        self.machine = LocationPermissionMachine(enabled: locationEnabled)
        continuation = LocationEventQueue()
        events = continuation.stream()
        (notices, noticeContinuation) = AsyncStream.makeStream(
            of: LocationNotice.self, bufferingPolicy: .bufferingNewest(Self.noticeLimit))
        if !locationEnabled {
            for source in sources { source.setEnabled(false) }
        }
    }

    /// Runs until cancelled: listens to every source, then stops them.
    public func run() async {
        continuation.append(.permission(machine.state))
        noPosition()
        defer { stopFixTimers() }
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
            // With no sources (or once they end) the service still answers the switch.
            group.addTask { [clock] in
                while !Task.isCancelled { try? await clock.sleep(seconds: 86_400) }
            }
        }
        continuation.finish()
        noticeContinuation.finish()
    }

    /// The privacy switch: off ignores every fix and forgets the position; on resumes. Sources that take part
    /// (GeoClue's agent) are told too.
    public func setLocationEnabled(_ enabled: Bool) {
        for source in sources { source.setEnabled(enabled) }
        apply(machine.handle(enabled ? .switchedOn : .switchedOff))
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
        case .rejected(let message):
            noticeContinuation.yield(LocationNotice(source: kind, message: message))
        case .fix(let fix):
            // While the switch is off a fix is not even kept: nothing from before or during "off" is used later.
            guard machine.isEnabled else { return }
            latest[kind] = fix
            if continuous(kind) { armFixTimer(for: kind) } else { disarmFixTimer(for: kind) }
            if case .authorized(let active) = machine.state, active != kind {
                // A lower-ranked source waits while a higher-ranked one has fixes.
                guard kind.rank < active.rank || latest[active] == nil else { return }
                continuation.append(.handover(from: active, to: kind, reason: "\(kind.title) has fixes again"))
                lastNamed = nil
            }
            apply(machine.handle(.fixReceived(kind)))
            guard machine.state == .authorized(kind) else { return }
            name(fix)
        case .denied(let reason):
            forget(kind)
            apply(machine.handle(.accessDenied(kind, reason)))
        case .restricted(let reason):
            forget(kind)
            apply(machine.handle(.accessRestricted(kind, reason)))
        case .lost(let reason):
            forget(kind)
            apply(machine.handle(.sourceLost(kind, reason)))
        }
    }

    private func continuous(_ kind: LocationSourceKind) -> Bool {
        sources.first { $0.kind == kind }?.sendsFixesContinuously ?? true
    }

    private func forget(_ kind: LocationSourceKind) {
        latest[kind] = nil
        disarmFixTimer(for: kind)
    }

    /// The fix as a position: named again past the movement threshold; within it, the place named last with this
    /// fix (its time, accuracy, speed), so that what is shown says when the last fix came.
    private func name(_ fix: LocationFix) {
        if let lastNamed, lastNamed.distance(to: fix.coordinate) < movementThreshold, var update = current,
            update.fix != nil
        {
            update.fix = fix
            update.distance = update.place.coordinate.distance(to: fix.coordinate)
            current = update
            continuation.append(.position(update))
            return
        }
        namings += 1
        guard let match = geocoder.place(for: fix.coordinate) else { return }
        lastNamed = fix.coordinate
        let update = LocationUpdate(place: match.place, distance: match.distance, fix: fix)
        current = update
        continuation.append(.position(update))
    }

    private func apply(_ actions: [LocationPermissionAction]) {
        for action in actions {
            switch action {
            case .announce(let state):
                continuation.append(.permission(state))
            case .useFallbackLocation:
                let lostSource = current?.fix?.source
                // Another source that is up and has a fix takes over before a stand-in does.
                if machine.isEnabled,
                    let next = latest.filter({ $0.key != lostSource }).min(by: { $0.key.rank < $1.key.rank })
                {
                    continuation.append(
                        .handover(
                            from: lostSource, to: next.key,
                            reason: machine.state.reason?.message ?? "\(lostSource?.title ?? "the source") stopped"))
                    lastNamed = nil
                    apply(machine.handle(.fixReceived(next.key)))
                    if machine.state == .authorized(next.key) {
                        name(next.value)
                        continue
                    }
                }
                if let lostSource { continuation.append(.fixLost(lostSource)) }
                noPosition()
            case .stopSources:
                // The switch went off: forget every live position, not only the one shown.
                stopFixTimers()
                latest = [:]
                lastNamed = nil
            }
        }
    }

    private func noPosition() {
        lastNamed = nil
        current = nil
        continuation.append(.noPosition)
    }

    /// Moves the source's "no fix" deadline to a fix timeout from now, starting its timer task if none waits.
    private func armFixTimer(for kind: LocationSourceKind) {
        fixDeadlines[kind] = clock.now + fixTimeout
        guard fixTimers[kind] == nil else { return }
        fixTimers[kind] = Task { await self.waitForFixDeadline(of: kind) }
    }

    private func disarmFixTimer(for kind: LocationSourceKind) {
        fixDeadlines[kind] = nil
        fixTimers.removeValue(forKey: kind)?.cancel()
    }

    private func stopFixTimers() {
        for timer in fixTimers.values { timer.cancel() }
        fixTimers = [:]
        fixDeadlines = [:]
    }

    /// Sleeps until the source's deadline, again while fixes keep moving it, and fires once it has passed.
    private func waitForFixDeadline(of kind: LocationSourceKind) async {
        while !Task.isCancelled, let deadline = fixDeadlines[kind] {
            guard deadline <= clock.now else {
                try? await clock.sleep(until: deadline)
                continue
            }
            fixDeadlines[kind] = nil
            fixTimers[kind] = nil
            latest[kind] = nil
            let seconds = Int(fixTimeout.components.seconds)
            apply(machine.handle(.timedOut(kind, seconds: seconds)))
            return
        }
    }
}
