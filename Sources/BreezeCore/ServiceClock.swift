#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The time the daemon's services read: every timer, timeout, backoff and age goes through one, so tests can drive
/// a manual clock instead of waiting in real time.
///
/// `now` and `sleep(until:)` are monotonic (timers and backoff); `wallTime` is the calendar (ages kept on disk and
/// shown to people).
public protocol ServiceClock: Sendable {
    /// The monotonic time now.
    var now: ContinuousClock.Instant { get }
    /// Seconds since 1970, UTC.
    var wallTime: Double { get }
    /// Returns at `deadline` (at once if it has passed); throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

extension ServiceClock {
    /// Returns after `duration`; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now + duration)
    }

    /// Returns after `seconds`; throws `CancellationError` when the task is cancelled.
    public func sleep(seconds: Double) async throws {
        try await sleep(for: .seconds(seconds))
    }
}

/// The machine's clocks: `ContinuousClock` for timers, the system's calendar time for ages.
public struct SystemServiceClock: ServiceClock {
    public init() {}

    public var now: ContinuousClock.Instant { .now }

    public var wallTime: Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}

extension ServiceClock where Self == SystemServiceClock {
    /// The machine's clocks.
    public static var system: SystemServiceClock { SystemServiceClock() }
}
