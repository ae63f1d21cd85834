import Foundation

/// How much longer than on a real machine a test may wait for something to happen: `BREEZE_TEST_TIME_SCALE`
/// (default 1, at most 100), which scripts/check-arm64 sets for tests running under emulation, many times slower.
///
/// Only waits that end as soon as their condition holds are scaled; a bound a test checks (a reply within 8 s, no
/// fetch for a minute) is not.
public enum TestTime {
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["BREEZE_TEST_TIME_SCALE"], let value = Double(text),
            value.isFinite
        else { return 1 }
        return min(max(value, 1), 100)
    }()

    /// The deadline of a wait of `seconds` (on a real machine) that starts now.
    public static func deadline(after seconds: Double) -> ContinuousClock.Instant {
        ContinuousClock.now + duration(seconds)
    }

    /// `seconds` (on a real machine), scaled.
    public static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int(seconds * scale * 1000))
    }
}
