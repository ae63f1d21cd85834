public import BreezeCore

#if canImport(Glibc)
    import Glibc
#endif

/// Turns gpsd's report lines into source events: usable fixes once each (gpsd sends one TPV per NMEA sentence of an
/// epoch, with the same time), "no fix" once per stretch without one, and a rejection once per stretch of reports
/// that are not used (broken lines, or a receiver time that went backwards).
///
/// Receiver clocks can be decades off (GPS week rollover): only the direction time moves in is judged, never how
/// far it is from this machine's clock.
public struct FixFilter: Sendable {
    /// A report older than the last used one by less than this is a late report of a recent epoch (gpsd sends
    /// several per epoch, at one epoch a second or faster) and is dropped silently; further back is a clock jump.
    public static let reorderTolerance = 1.0
    /// After a backward jump, the receiver's new timeline is trusted once it has moved forward through this many
    /// epochs in a row: about 10 s at 1 Hz, far longer than a glitch, and a receiver whose clock really did go back
    /// (a week-rollover bug, gpsfake replaying a log again) keeps working.
    public static let epochsToTrustNewTimeline = 10

    private var lastTime: GPSDTime?
    private var lastPosition: Coordinate?
    private var reportedNoFix = false
    /// A rejection was reported and nothing has been used since: later ones of the same stretch stay quiet.
    private var reportedRejection = false
    /// The newest time seen since a backward jump, and how many epochs in a row led up to it.
    private var newTimeline: (time: GPSDTime, epochs: Int)?

    public init() {}

    public mutating func reset() {
        self = FixFilter()
    }

    /// The event for one report line (without its newline), or nil when it changes nothing.
    public mutating func event(forLine line: some Collection<UInt8>, source: LocationSourceKind) -> LocationSourceEvent?
    {
        let report: GPSDReport
        do {
            report = try GPSDReport.parse(line)
        } catch {
            return reject(error.description)
        }
        return event(for: report, source: source)
    }

    mutating func event(for report: GPSDReport, source: LocationSourceKind) -> LocationSourceEvent? {
        switch report {
        case .other:
            return nil
        case .noFix:
            lastPosition = nil
            guard !reportedNoFix else { return nil }
            reportedNoFix = true
            return .noFix
        case .position(let position):
            switch epoch(of: position) {
            case .known: return nil
            case .wentBack(let seconds):
                return reject(
                    "the receiver's time went back \(seconds) s: its fixes are ignored until the time "
                        + "moves forward again")
            case .new: break
            }
            reportedNoFix = false
            reportedRejection = false
            lastPosition = position.coordinate
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            return .fix(
                LocationFix(
                    coordinate: position.coordinate, mode: position.mode, altitude: position.altitude,
                    horizontalAccuracy: position.horizontalError, speed: position.speed, track: position.track,
                    receiverTime: position.time?.secondsSince1970, receivedAt: .now,
                    receivedWallTime: Double(wall.tv_sec) + Double(wall.tv_nsec) / 1e9, source: source))
        }
    }

    private enum Epoch {
        /// A later epoch than any used so far: use it.
        case new
        /// An epoch already used, or a late report of one.
        case known
        /// The receiver's time jumped back this many seconds.
        case wentBack(Int)
    }

    private mutating func epoch(of position: GPSDPosition) -> Epoch {
        guard let time = position.time else {
            // No time at all (some receivers): the same position again is the same epoch.
            return lastPosition == position.coordinate ? .known : .new
        }
        guard let last = lastTime, time <= last else {
            lastTime = time
            newTimeline = nil
            return .new
        }
        let back = last.seconds(after: time)
        if back < Self.reorderTolerance { return .known }
        // A jump back: the new timeline counts only once it has moved forward for long enough.
        if let candidate = newTimeline, time <= candidate.time {
            if time < candidate.time { newTimeline = (time, 1) }
        } else {
            newTimeline = (time, (newTimeline?.epochs ?? 0) + 1)
        }
        if let candidate = newTimeline, candidate.epochs >= Self.epochsToTrustNewTimeline {
            lastTime = time
            newTimeline = nil
            return .new
        }
        return .wentBack(Int(exactly: back.rounded()) ?? Int.max)
    }

    private mutating func reject(_ message: String) -> LocationSourceEvent? {
        guard !reportedRejection else { return nil }
        reportedRejection = true
        return .rejected(message)
    }
}
