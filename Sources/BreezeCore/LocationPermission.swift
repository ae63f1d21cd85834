/// Where a live position comes from.
public enum LocationSourceKind: String, CaseIterable, Sendable, Codable {
    case gpsd
    case geoclue

    /// How a person would name the source.
    public var title: String {
        switch self {
        case .gpsd: "gpsd"
        case .geoclue: "GeoClue"
        }
    }

    /// The order breezed prefers sources in, lowest first: the receiver through gpsd, then GeoClue.
    public var rank: Int {
        switch self {
        case .gpsd: 0
        case .geoclue: 1
        }
    }
}

/// Why the machine's location is not (or not yet) available: a sentence for a person and, where they can act,
/// what to do about it.
public struct PermissionReason: Hashable, Sendable, Codable {
    /// A small, stable vocabulary for scripts; the message is for people.
    public enum Code: String, CaseIterable, Sendable, Codable {
        /// The user switched location off.
        case switchedOff = "switched-off"
        /// The source refused this program.
        case accessDenied = "access-denied"
        /// An administrator's policy stands in the way.
        case policy
        /// The source is not running or cannot be reached.
        case notRunning = "not-running"
        /// The source runs but has no position.
        case noFix = "no-fix"
        /// The source went away.
        case lost
        /// The source is full or busy.
        case busy
    }

    public var code: Code
    public var message: String
    public var hint: String?
    /// When the source that was lost is tried next (seconds since 1970), where it retries by itself.
    public var retryAt: Double?

    public init(code: Code, message: String, hint: String? = nil, retryAt: Double? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.retryAt = retryAt
    }

    /// The same reason, with the time of the next try (none: nil).
    public func retrying(at time: Double?) -> PermissionReason {
        var reason = self
        reason.retryAt = time
        return reason
    }

    /// The reason given while the user has location switched off.
    public static let switchedOff = PermissionReason(
        code: .switchedOff,
        message: "Location is switched off; the selected city is used instead",
        hint: "run 'breezectl location on' to use this machine's position again")
}

/// Whether the daemon may and can know where the machine is.
///
/// A permission that is not granted is a state with a reason and a hint, never an error.
public enum LocationPermission: Hashable, Sendable {
    /// Nothing has been asked yet.
    case notDetermined
    /// A source is being asked (connecting, or waiting for its first fix).
    case requesting(LocationSourceKind)
    /// A source gives positions.
    case authorized(LocationSourceKind)
    /// The user or the source said no.
    case denied(PermissionReason)
    /// A policy the user cannot change alone (an administrator's configuration) says no.
    case restricted(PermissionReason)
    /// Allowed, but there is no position to be had right now.
    case unavailable(PermissionReason)

    /// The state's stable name on the wire: `not_determined`, `requesting`, `authorized`, `denied`,
    /// `restricted`, `unavailable`.
    public var name: String {
        switch self {
        case .notDetermined: "not_determined"
        case .requesting: "requesting"
        case .authorized: "authorized"
        case .denied: "denied"
        case .restricted: "restricted"
        case .unavailable: "unavailable"
        }
    }

    /// The source the state is about, where there is one.
    public var source: LocationSourceKind? {
        switch self {
        case .requesting(let source), .authorized(let source): source
        default: nil
        }
    }

    public var reason: PermissionReason? {
        switch self {
        case .denied(let reason), .restricted(let reason), .unavailable(let reason): reason
        default: nil
        }
    }

    /// A sentence for a person, whatever the state.
    public var message: String {
        switch self {
        case .notDetermined: "Location has not been asked for yet"
        case .requesting(let source): "Asking \(source.title) for a position"
        case .authorized(let source): "Position from \(source.title)"
        case .denied(let reason), .restricted(let reason), .unavailable(let reason): reason.message
        }
    }

    public var hint: String? {
        reason?.hint
    }

    /// The state but for the time of the next try: what a person is told changed only when this did.
    public var withoutRetryTime: LocationPermission {
        switch self {
        case .notDetermined, .requesting, .authorized: self
        case .denied(let reason): .denied(reason.retrying(at: nil))
        case .restricted(let reason): .restricted(reason.retrying(at: nil))
        case .unavailable(let reason): .unavailable(reason.retrying(at: nil))
        }
    }

    public var isAuthorized: Bool {
        if case .authorized = self { return true }
        return false
    }
}
