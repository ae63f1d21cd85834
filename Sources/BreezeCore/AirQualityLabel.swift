/// Breeze's friendlier reading of a US AQI value: finer steps at the clean end, the EPA's bands above 100.
public enum AirQualityLabel: String, CaseIterable, Sendable, Codable {
    case excellent
    case good
    case moderate
    case slightlyHigh = "slightly_high"
    case unhealthyForSensitiveGroups = "unhealthy_for_sensitive_groups"
    case unhealthy
    case veryUnhealthy = "very_unhealthy"
    case hazardous

    /// The label for an index value; nil for a value that is not an index (negative, NaN).
    public init?(usAQI value: Double) {
        guard let category = AQICategory(usAQI: value) else { return nil }
        switch category {
        case .good: self = value.rounded() <= 25 ? .excellent : .good
        case .moderate: self = value.rounded() <= 75 ? .moderate : .slightlyHigh
        case .unhealthyForSensitiveGroups: self = .unhealthyForSensitiveGroups
        case .unhealthy: self = .unhealthy
        case .veryUnhealthy: self = .veryUnhealthy
        case .hazardous: self = .hazardous
        }
    }

    /// The EPA band this label lies in.
    public var category: AQICategory {
        switch self {
        case .excellent, .good: .good
        case .moderate, .slightlyHigh: .moderate
        case .unhealthyForSensitiveGroups: .unhealthyForSensitiveGroups
        case .unhealthy: .unhealthy
        case .veryUnhealthy: .veryUnhealthy
        case .hazardous: .hazardous
        }
    }

    public var title: String {
        switch self {
        case .excellent: "Excellent"
        case .good: "Good"
        case .moderate: "Moderate"
        case .slightlyHigh: "Slightly High"
        case .unhealthyForSensitiveGroups: "Unhealthy for Sensitive Groups"
        case .unhealthy: "Unhealthy"
        case .veryUnhealthy: "Very Unhealthy"
        case .hazardous: "Hazardous"
        }
    }

    public var emoji: String {
        switch self {
        case .excellent: "😊"
        case .good: "🙂"
        case .moderate: "😐"
        case .slightlyHigh: "😕"
        case .unhealthyForSensitiveGroups: "😷"
        case .unhealthy: "🤢"
        case .veryUnhealthy: "😵"
        case .hazardous: "☠️"
        }
    }

    /// One line saying what the air is like.
    public var summary: String {
        switch self {
        case .excellent: "The air is clean and fresh."
        case .good: "Air quality is good; pollution poses little or no risk."
        case .moderate: "Air quality is acceptable; a few very sensitive people may notice it."
        case .slightlyHigh: "Pollution is creeping up; unusually sensitive people may feel it."
        case .unhealthyForSensitiveGroups: "Sensitive groups may feel the effects; most people will not."
        case .unhealthy: "Everyone may begin to feel the effects; sensitive groups more so."
        case .veryUnhealthy: "Health alert: everyone is at risk of effects."
        case .hazardous: "Health warning of emergency conditions: everyone is likely to be affected."
        }
    }

    /// What to do about it.
    public var healthTips: [String] {
        switch self {
        case .excellent:
            ["A good time to air the house.", "Enjoy time outdoors."]
        case .good:
            ["Outdoor activity is fine for everyone."]
        case .moderate:
            ["Very sensitive people may cut long, hard exertion outdoors."]
        case .slightlyHigh:
            ["People with asthma or heart or lung disease may take it easier outdoors.",
             "Keep windows shut near busy roads."]
        case .unhealthyForSensitiveGroups:
            ["Children, older adults and people with asthma should limit long outdoor exertion.",
             "Keep quick-relief medicine at hand."]
        case .unhealthy:
            ["Everyone should cut long or heavy outdoor exertion.", "Keep windows closed; run an air purifier."]
        case .veryUnhealthy:
            ["Avoid outdoor exertion.", "Stay indoors with filtered air if you can."]
        case .hazardous:
            ["Stay indoors and keep activity low.", "Wear a well-fitted N95/FFP2 mask if you must go out."]
        }
    }

    /// The label's colour as hex RGB (the EPA colour of its band; green shades at the clean end).
    public var colorHex: String {
        switch self {
        case .excellent: "#00C853"
        case .good: "#00E400"
        case .moderate: "#FFFF00"
        case .slightlyHigh: "#FFC400"
        default: category.colorHex
        }
    }
}
