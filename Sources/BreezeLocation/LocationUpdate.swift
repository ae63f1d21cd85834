public import BreezeCore

/// Where the machine is, named.
public struct LocationUpdate: Hashable, Sendable {
    public var place: Place
    /// Metres from the position to the place's centre.
    public var distance: Double
    /// The fix the place was named for (for `lastFix`, the last one before fixes stopped); nil for a city.
    public var fix: LocationFix?
    /// What the place is when it is not the live position's; nil for a live position.
    public var standIn: StandIn?

    /// "gpsd", "geoclue" or "manual" (a city: selected, fallback, saved or restored).
    public var source: String {
        fix?.source.rawValue ?? "manual"
    }

    public init(place: Place, distance: Double, fix: LocationFix?, standIn: StandIn? = nil) {
        self.place = place
        self.distance = distance
        self.fix = fix
        self.standIn = standIn
    }

    /// A city shown as what it is: no fix, no distance.
    public static func city(_ place: Place, as standIn: StandIn) -> LocationUpdate {
        LocationUpdate(place: place, distance: 0, fix: nil, standIn: standIn)
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
    /// No source gives a position (at the start, after the last one's fix is lost, with location switched off).
    case noPosition
    /// Positions now come from `to` instead of `from` (nil: from none), and why.
    case handover(from: LocationSourceKind?, to: LocationSourceKind, reason: String)
}
