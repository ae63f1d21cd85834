import BreezeCore
import BreezeGPSD
import Testing

/// Repeats of a position held back from the location service for a while, without sockets or sleeps.
@Suite struct UnchangedFixThrottleTests {
    static let start = ContinuousClock.now
    static let bern = Coordinate(latitude: 46.948, longitude: 7.4474)

    static func fix(_ coordinate: Coordinate = bern, mode: FixMode = .threeD, at milliseconds: Int) -> LocationSourceEvent {
        .fix(LocationFix(
            coordinate: coordinate, mode: mode, horizontalAccuracy: Double(milliseconds % 7),
            receivedAt: start + .milliseconds(milliseconds), receivedWallTime: 0, source: .gpsd))
    }

    /// Which of `events` pass, in order.
    static func passed(_ events: [LocationSourceEvent], interval: Duration = .seconds(1)) -> [Bool] {
        var throttle = UnchangedFixThrottle(interval: interval)
        return events.map { throttle.passes($0) }
    }

    @Test func aRepeatedPositionPassesOncePerInterval() {
        // Ten fixes a second at rest for 2.5 s: the first, then the first repeat at or after each second.
        let events = stride(from: 0, through: 2_500, by: 100).map { Self.fix(at: $0) }
        let passedAt = zip(events, Self.passed(events)).compactMap { event, passed -> Duration? in
            guard passed, case .fix(let fix) = event else { return nil }
            return fix.receivedAt - Self.start
        }
        #expect(passedAt == [.zero, .seconds(1), .seconds(2)])
    }

    @Test func aNewPositionOrModePassesAtOnce() {
        let moved = Coordinate(latitude: 46.9481, longitude: 7.4474)
        let events = [
            Self.fix(at: 0), Self.fix(moved, at: 10), Self.fix(moved, at: 20), Self.fix(moved, mode: .twoD, at: 30),
            Self.fix(at: 40),
        ]
        #expect(Self.passed(events) == [true, true, false, true, true])
    }

    @Test func anyOtherEventPassesAndEndsTheStretch() {
        let events: [LocationSourceEvent] = [
            Self.fix(at: 0), Self.fix(at: 10), .noFix, Self.fix(at: 20), Self.fix(at: 30), .rejected("broken"),
            Self.fix(at: 40), .connected, Self.fix(at: 50),
        ]
        #expect(Self.passed(events) == [true, false, true, true, false, true, true, true, true])
    }

    @Test func resetPassesTheNextRepeat() {
        var throttle = UnchangedFixThrottle(interval: .seconds(1))
        var passed = [throttle.passes(Self.fix(at: 0)), throttle.passes(Self.fix(at: 10))]
        throttle.reset()
        passed += [throttle.passes(Self.fix(at: 20)), throttle.passes(Self.fix(at: 30))]
        #expect(passed == [true, false, true, false])
    }

    @Test func aZeroIntervalPassesEveryFix() {
        let events = (0..<5).map { Self.fix(at: $0) }
        #expect(Self.passed(events, interval: .zero) == [true, true, true, true, true])
    }
}
