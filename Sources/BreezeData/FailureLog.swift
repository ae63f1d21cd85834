/// What a dataset run's failures are logged as: the first of each reason, and how often it came again before the
/// next reason or a success, so that an hour offline is a line, not one per retry.
struct FailureLog {
    private var reason: String?
    /// Failures of `reason` after its first.
    private var repeats = 0
    /// Failures since the last success.
    private var total = 0

    /// Takes a failure: nil when it repeats the one before (counted), else how often the one before repeated.
    mutating func failed(_ reason: String) -> Int? {
        total += 1
        if reason == self.reason {
            repeats += 1
            return nil
        }
        defer {
            self.reason = reason
            repeats = 0
        }
        return repeats
    }

    /// Takes a success: the failures since the last success, or nil when there were none.
    mutating func recovered() -> Int? {
        guard total > 0 else { return nil }
        defer {
            reason = nil
            repeats = 0
            total = 0
        }
        return total
    }
}
