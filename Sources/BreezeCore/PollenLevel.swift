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

    /// Advice for people with hay fever at this level, a sentence each, the most important first.
    ///
    /// The steps are the NHS's self-help advice for hay fever (https://www.nhs.uk/conditions/hay-fever/: its things
    /// to do and not to do to ease symptoms when the pollen count is high, and its advice to ask a pharmacist about
    /// treatments), claiming nothing beyond it. The NHS gives them for a high count; which of them a lower level
    /// shows is Breeze's choice: fewer and lighter steps as the level falls, none below Low.
    public var healthTips: [String] {
        switch self {
        case .none:
            ["No pollen to speak of."]
        case .veryLow:
            ["Very little pollen in the air."]
        case .low:
            ["With hay fever, shower and change your clothes after you have been outside."]
        case .moderate:
            [
                "With hay fever, keep windows and doors shut as much as possible.",
                "Shower and change your clothes after you have been outside.",
            ]
        case .high:
            [
                "With hay fever, stay indoors when you can and keep windows and doors shut.",
                "Outside, wear wraparound sunglasses and put petroleum jelly around your nostrils to trap pollen.",
                "Shower and change your clothes after you have been outside.",
                "A pharmacist can suggest treatments, such as antihistamine tablets, drops or nasal sprays.",
            ]
        case .veryHigh:
            [
                "With hay fever, stay indoors whenever possible and keep windows and doors shut.",
                "Do not cut or walk on grass, and do not dry clothes outside.",
                "Outside, wear wraparound sunglasses and put petroleum jelly around your nostrils to trap pollen.",
                "A pharmacist can suggest treatments, such as antihistamine tablets, drops or nasal sprays.",
            ]
        }
    }

    public static func < (lhs: PollenLevel, rhs: PollenLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
