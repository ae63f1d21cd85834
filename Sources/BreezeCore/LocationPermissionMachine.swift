/// Something that happened to a location source, or a choice the user made.
public enum LocationPermissionEvent: Hashable, Sendable {
    /// The daemon began asking a source (connecting to gpsd, calling GeoClue).
    case requestStarted(LocationSourceKind)
    /// The source accepted us; a fix may follow.
    case sourceConnected(LocationSourceKind)
    /// The source delivered a usable fix.
    case fixReceived(LocationSourceKind)
    /// The source refused this program.
    case accessDenied(LocationSourceKind, PermissionReason)
    /// An administrator's policy refused this program.
    case accessRestricted(LocationSourceKind, PermissionReason)
    /// The source cannot be reached or has gone away.
    case sourceLost(LocationSourceKind, PermissionReason)
    /// No fix came from the source for `seconds`.
    case timedOut(LocationSourceKind, seconds: Int)
    /// The user switched location off (the privacy switch).
    case switchedOff
    /// The user switched location on.
    case switchedOn

    /// The source the event is about; nil for the user's switch.
    public var source: LocationSourceKind? {
        switch self {
        case .requestStarted(let source), .sourceConnected(let source), .fixReceived(let source),
            .accessDenied(let source, _), .accessRestricted(let source, _), .sourceLost(let source, _),
            .timedOut(let source, _):
            source
        case .switchedOff, .switchedOn:
            nil
        }
    }
}

/// What a transition asks the outside world to do. The machine does no I/O; its owner carries these out, in order.
public enum LocationPermissionAction: Hashable, Sendable {
    /// Tell subscribers the new state.
    case announce(LocationPermission)
    /// Stop listening to the sources, and drop any position they gave.
    case stopSources
    /// Use the user's selected or saved city until a source gives positions again.
    case useFallbackLocation
}

/// The location-permission state machine: a pure value.
///
/// Feed it events with `handle(_:)`; carry out the actions it returns. Every state accepts every event.
///
/// Sources keep running, and retry by themselves, whatever the state: the machine decides what is shown, not
/// which sources run. Their fixes count again once the switch is on; a fix authorizes its source.
///
/// - While the switch is off, only `switchedOn` is heard.
/// - While a source gives fixes (`authorized`), news of another source (connecting, lost, refused) changes
///   nothing; a fix from another source hands over to it. Which source to listen to is the location service's
///   choice; the machine follows the fixes.
/// - While `unavailable` tells of one source's trouble (lost, or reached but without a fix), a lower-ranked source's
///   loss or silence changes nothing: with both retrying, the state would otherwise take turns between their reasons
///   at every retry. Refusals (denied, restricted) are always shown: they ask something of the user.
public struct LocationPermissionMachine: Hashable, Sendable {
    public private(set) var state: LocationPermission
    /// The privacy switch; while it is off, source events are ignored.
    public private(set) var isEnabled: Bool
    /// The source whose trouble the `unavailable` state tells of.
    private var unavailableSource: LocationSourceKind?

    /// - Parameter enabled: the privacy switch as the user left it.
    public init(enabled: Bool = true) {
        isEnabled = enabled
        state = enabled ? .notDetermined : .denied(.switchedOff)
    }

    /// Applies an event and returns the actions it calls for.
    public mutating func handle(_ event: LocationPermissionEvent) -> [LocationPermissionAction] {
        let before = state
        var actions: [LocationPermissionAction] = []

        switch event {
        case .switchedOff:
            guard isEnabled else { return [] }
            isEnabled = false
            state = .denied(.switchedOff)
            actions.append(.stopSources)
        case .switchedOn:
            guard !isEnabled else { return [] }
            isEnabled = true
            state = .notDetermined
        case _ where !isEnabled:
            // The user said no: whatever a source says is not listened to.
            return []
        case _ where isAboutAnotherSource(event):
            // Fixes keep coming from the authorized source; another source's troubles are not ours.
            return []
        case _ where isOutrankedTrouble(event):
            // The higher-ranked source's trouble stays shown (see above).
            return []
        case .requestStarted(let source), .sourceConnected(let source):
            // A source retrying after it was lost is not news: the state stays unavailable, with its reason, until
            // the source connects (else every retry would flap between requesting and unavailable).
            if case .requestStarted = event, case .unavailable = state { break }
            // A source we already have fixes from stays authorized while it reconnects its stream.
            if state != .authorized(source) { state = .requesting(source) }
        case .fixReceived(let source):
            state = .authorized(source)
        case .accessDenied(_, let reason):
            state = .denied(reason)
        case .accessRestricted(_, let reason):
            state = .restricted(reason)
        case .sourceLost(let source, let reason):
            state = .unavailable(reason)
            unavailableSource = source
        case .timedOut(let source, let seconds):
            state = .unavailable(Self.noFixReason(source: source, seconds: seconds, hadFix: before.isAuthorized))
            unavailableSource = source
        }

        if state == before { return actions }
        actions.insert(.announce(state), at: 0)
        if before.isAuthorized && !state.isAuthorized {
            actions.append(.useFallbackLocation)
        }
        return actions
    }

    /// True for news other than a fix about a source other than the one that is authorized.
    private func isAboutAnotherSource(_ event: LocationPermissionEvent) -> Bool {
        guard case .authorized(let current) = state, let source = event.source, source != current else { return false }
        if case .fixReceived = event { return false }
        return true
    }

    /// True for a loss or a silence of a source ranked below the one whose trouble is shown.
    private func isOutrankedTrouble(_ event: LocationPermissionEvent) -> Bool {
        guard case .unavailable = state, let shown = unavailableSource else { return false }
        switch event {
        case .sourceLost(let source, _), .timedOut(let source, _): return source.rank > shown.rank
        default: return false
        }
    }

    static func noFixReason(source: LocationSourceKind, seconds: Int, hadFix: Bool) -> PermissionReason {
        let message =
            hadFix
            ? "\(source.title) has sent no fix for \(seconds) s; the place of its last fix is shown meanwhile"
            : "\(source.title) has no location yet after \(seconds) s"
        let hint: String =
            switch source {
            case .gpsd: "give the GPS receiver a clear view of the sky; 'gpsmon' shows what it sees"
            case .geoclue:
                "GeoClue has no source with a position: check its Wi-Fi or NMEA sources in /etc/geoclue/geoclue.conf"
            }
        return PermissionReason(code: .noFix, message: message, hint: hint)
    }
}
