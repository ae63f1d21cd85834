/// A pollen index on the 0–5 scale of the Universal Pollen Index.
public enum PollenLevel: Int, CaseIterable, Sendable, Codable, Comparable {
    case none = 0
    case veryLow = 1
    case low = 2
    case moderate = 3
    case high = 4
    case veryHigh = 5

    /// The level for an index value; values outside 0–5 are clamped, non-numbers give nil.
    public init?(index: Double) {
        guard index.isFinite else { return nil }
        self.init(rawValue: Int(min(5, max(0, index.rounded()))))
    }

    public var title: String {
        switch self {
        case .none: "None"
        case .veryLow: "Very Low"
        case .low: "Low"
        case .moderate: "Moderate"
        case .high: "High"
        case .veryHigh: "Very High"
        }
    }

    public static func < (lhs: PollenLevel, rhs: PollenLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
