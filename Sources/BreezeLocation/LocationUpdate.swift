public import BreezeCore

/// Where the machine is, named.
public struct LocationUpdate: Hashable, Sendable {
    public var place: Place
    /// Metres from the position to the place's centre.
    public var distance: Double
    /// The fix the place was named for; nil for the fallback city.
    public var fix: LocationFix?

    /// "gpsd", "geoclue" or "manual" (the selected or saved city).
    public var source: String {
        fix?.source.rawValue ?? "manual"
    }

    public init(place: Place, distance: Double, fix: LocationFix?) {
        self.place = place
        self.distance = distance
        self.fix = fix
    }
}

/// What the location service tells the rest of the daemon.
public enum LocationServiceEvent: Hashable, Sendable {
    /// The permission state changed (with its reason and hint).
    case permission(LocationPermission)
    /// A live position moved past the movement threshold (or is the first) and was named.
    case position(LocationUpdate)
    /// The live source stopped giving fixes.
    case fixLost(LocationSourceKind)
    /// The selected or saved city stands in for a live position (nil: the user has none).
    case fallback(Place?)
    /// Positions now come from `to` instead of `from` (nil: from none), and why.
    case handover(from: LocationSourceKind?, to: LocationSourceKind, reason: String)
}
