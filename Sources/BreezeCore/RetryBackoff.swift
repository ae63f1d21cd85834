/// Exponential backoff with jitter, capped, reset on success: how long to wait before the next attempt.
public struct RetryBackoff: Hashable, Sendable {
    public var initial: Double
    public var maximum: Double
    public var multiplier: Double
    /// The share of each delay that is random (0 none, 0.5 means delay × [0.5, 1]).
    public var jitter: Double
    public private(set) var attempt = 0

    public init(initial: Double = 0.5, maximum: Double = 30, multiplier: Double = 2, jitter: Double = 0.5) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The delay in seconds before the next attempt; each call counts an attempt.
    public mutating func nextDelay(using random: inout some RandomNumberGenerator) -> Double {
        let base = min(maximum, initial * pow(multiplier, Double(attempt)))
        attempt += 1
        return base * (1 - jitter * Double.random(in: 0...1, using: &random))
    }

    public mutating func nextDelay() -> Double {
        var random = SystemRandomNumberGenerator()
        return nextDelay(using: &random)
    }

    /// A success: the next failure starts from the initial delay again.
    public mutating func reset() {
        attempt = 0
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
