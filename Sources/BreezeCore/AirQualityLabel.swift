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

    /// What to do about it: the EPA's advice for the label's band, a sentence each, the most important first.
    ///
    /// Each sentence restates the EPA's guidance for the band and claims nothing beyond it. The cautionary
    /// statements are the Technical Assistance Document for the Reporting of Daily Air Quality (EPA-454/B-18-007,
    /// 2018) for PM2.5, PM10 and ozone, the pollutants that set the index most days; the everyday wording and the
    /// advice on asthma follow AirNow's Air Quality Guide for Particle Pollution and for Ozone. Both sub-labels of a
    /// band draw on the same guidance: Excellent and Good on Good's, Moderate and Slightly High on Moderate's.
    public var healthTips: [String] {
        switch self {
        case .excellent, .good:
            // Guide, Good: "It's a great day to be active outside." (the document's statement: none).
            ["It's a great day to be active outside."]
        case .moderate:
            // Document, Moderate; the Guide adds the second sentence.
            [
                "Unusually sensitive people should consider reducing prolonged or heavy exertion outdoors.",
                "Everyone else: it's a good day to be active outside.",
            ]
        case .slightlyHigh:
            // Document, Moderate; the Guide adds the symptoms to watch for.
            [
                "Unusually sensitive people should consider reducing prolonged or heavy exertion outdoors.",
                "Watch for coughing or shortness of breath: they are signs to take it easier.",
            ]
        case .unhealthyForSensitiveGroups:
            // Document, USG; who is sensitive as the Guides for particles and ozone list them; the Guide adds
            // the rest.
            [
                "People with heart or lung disease, older adults, children, teenagers and people active outdoors "
                    + "should reduce prolonged or heavy exertion outdoors.",
                "They can still be active outside: take more breaks and do less intense activities.",
                "People with asthma should follow their asthma action plans and keep quick-relief medicine handy.",
            ]
        case .unhealthy:
            // Document, Unhealthy; the Guide adds the second and third sentences.
            [
                "Sensitive groups should avoid prolonged or heavy exertion outdoors; everyone else should reduce it.",
                "Sensitive groups: consider moving activities indoors or rescheduling them.",
                "Everyone else: take more breaks during outdoor activities.",
            ]
        case .veryUnhealthy:
            // Document, Very Unhealthy (particles); the Guide adds the second sentence.
            [
                "Sensitive groups should avoid all physical activity outdoors; everyone else should avoid prolonged "
                    + "or heavy exertion.",
                "Consider moving activities indoors or rescheduling them to a time when air quality is better.",
            ]
        case .hazardous:
            // Document and Guide, Hazardous.
            [
                "Everyone should avoid all physical activity outdoors.",
                "Sensitive groups should remain indoors and keep activity levels low.",
            ]
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
