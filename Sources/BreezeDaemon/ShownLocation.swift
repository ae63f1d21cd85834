import BreezeCore
import BreezeLocation
import BreezeProtocol

/// What the daemon has shown of the location: the permission and the machine's own position as the location service
/// last told them, the `LOCATION` last published, and the place the data is being fetched for. The daemon alone
/// changes it, on its actor.
struct ShownLocation {
    var permission = LocationPermission.notDetermined
    /// The permission last logged, retry time aside: what a new one is compared with to tell news from a retry.
    /// Nil until the first, which is news.
    var announcedPermission: LocationPermission?
    /// The machine's own location: live, or what stands in for it (`Daemon.standIn`); the selection, when there
    /// is one, is shown instead.
    var live: LocationUpdate?
    /// The place a source named last in this run, with its fix: it stands in when fixes stop ("(no fix)").
    var lastFix: LocationUpdate?
    /// The place an earlier run named last (the state file's), standing in until a source names one.
    var restored: Place?
    /// The configuration's `fallback_city`, resolved (nil when unset); replaced on a reload.
    var fallbackCity: Place?
    /// What a peer given city-level positions is told about exact ones: the group to join, and how.
    var exactPositionsHint = "exact positions go to breezed's own user and group"
    /// The place of the `LOCATION` last published: its data is the data fetched.
    var placeID: Int?
    /// Asks the pipeline for the data of the place last published; replaced (and cancelled) when the place changes.
    var placeFetch: Task<Void, Never>?
    /// The last LOCATION published (as trusted peers see it), so that an unchanged one is not sent again.
    var published: JSONValue?
    /// LOCATION at most four times a second, however fast positions or permission changes arrive.
    var pacer = PublishPacer(interval: .milliseconds(250))
    /// Nominatim's names for places named offline, by the offline place's id.
    var onlineNames: [Int: Place] = [:]
}
