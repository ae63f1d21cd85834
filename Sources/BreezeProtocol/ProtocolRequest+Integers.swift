extension ProtocolRequest {
    /// A whole-number argument; `default` when absent. A fraction, or a number outside `range`, is `bad-argument`
    /// naming the field: numbers from a peer never reach an integer conversion unchecked.
    public func integer(
        _ key: String, default fallback: Int? = nil, in range: ClosedRange<Int> = Int.min...Int.max
    ) throws(ProtocolError) -> Int {
        let value = try number(key, default: fallback.map(Double.init))
        guard let whole = Int(exactly: value), range.contains(whole) else {
            let bounds = range == Int.min...Int.max ? "" : " from \(range.lowerBound) to \(range.upperBound)"
            throw ProtocolError(.badArgument, "\"\(key)\" must be a whole number\(bounds)")
        }
        return whole
    }
}
