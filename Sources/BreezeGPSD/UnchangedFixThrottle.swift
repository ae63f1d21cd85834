public import BreezeCore

/// Holds back fixes that repeat the position last passed on, for up to `interval`: a receiver at rest reporting
/// many times a second changes nothing the location service publishes (it names a position only once it has moved
/// past the movement threshold), so each repeat need not cross to the service. A repeat is still passed on once
/// `interval` has gone by, so that the service's fix timeout, moved by each fix it gets, counts from at most
/// `interval` before the newest fix.
///
/// Any event other than a fix ends the stretch: the next fix is passed on whatever it says.
public struct UnchangedFixThrottle: Sendable {
    /// How long an unchanged position may go without being passed on; zero passes every fix.
    public let interval: Duration
    private var last: Passed?

    /// The fix last passed on (a struct, not a tuple: an optional tuple's copies go through generic code).
    private struct Passed {
        var coordinate: Coordinate
        var mode: FixMode
        var at: ContinuousClock.Instant
    }

    public init(interval: Duration) {
        self.interval = interval
    }

    /// Whether to pass `event` on now.
    public mutating func passes(_ event: LocationSourceEvent) -> Bool {
        guard case .fix(let fix) = event else {
            last = nil
            return true
        }
        if let last, last.coordinate == fix.coordinate, last.mode == fix.mode, fix.receivedAt - last.at < interval {
            return false
        }
        last = Passed(coordinate: fix.coordinate, mode: fix.mode, at: fix.receivedAt)
        return true
    }

    /// Forgets the last fix passed on: the next one is passed on whatever it says.
    public mutating func reset() {
        last = nil
    }
}
