public import BreezeCore
public import BreezeSystem

/// The machine's clocks, with sleeps on a `TimerThread` rather than `Task.sleep`: breezed's clock (TimerThread.swift
/// says why).
public struct TimerThreadClock: ServiceClock {
    private let timers: TimerThread

    public init(_ timers: TimerThread) {
        self.timers = timers
    }

    public var now: ContinuousClock.Instant { .now }

    public var wallTime: Double { SystemServiceClock().wallTime }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await timers.sleep(until: deadline)
    }
}
