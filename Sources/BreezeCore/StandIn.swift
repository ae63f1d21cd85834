/// What a place shown instead of a live position is: `LOCATION`'s `stand_in`. While no source gives a position, the
/// first of these that exists stands in, in this order: `lastFix`, `fallback`, `restored`, `saved`; `selected` is
/// shown over every one of them and over a live position.
public enum StandIn: String, Hashable, Sendable, CaseIterable {
    /// The place a source named last in this run, its fix since lost: shown as "<place> (no fix)", with the time of
    /// that fix.
    case lastFix = "last-fix"
    /// The configuration's `fallback_city`.
    case fallback
    /// The place an earlier run named last (from the state file), until a source names one in this run.
    case restored
    /// The first saved city.
    case saved
    /// The city selected with `select`, shown until `here`.
    case selected

    /// For people: what the place shown is, after its name ("Bern (fallback city)").
    public var title: String {
        switch self {
        case .lastFix: "no fix"
        case .fallback: "fallback city"
        case .restored: "last known place"
        case .saved: "saved city"
        case .selected: "selected"
        }
    }
}
