/// The US EPA's Air Quality Index bands.
public enum AQICategory: String, CaseIterable, Sendable, Codable {
    case good
    case moderate
    case unhealthyForSensitiveGroups = "unhealthy_for_sensitive_groups"
    case unhealthy
    case veryUnhealthy = "very_unhealthy"
    case hazardous

    /// The band an index value falls in; nil for a value that is not an index (negative, NaN).
    public init?(usAQI value: Double) {
        guard value.isFinite, value >= 0 else { return nil }
        // The EPA publishes whole-number bands; a fractional value belongs to the band it rounds into.
        switch value.rounded() {
        case ...50: self = .good
        case ...100: self = .moderate
        case ...150: self = .unhealthyForSensitiveGroups
        case ...200: self = .unhealthy
        case ...300: self = .veryUnhealthy
        default: self = .hazardous
        }
    }

    /// The band's index values as the EPA publishes them (the last one is open-ended).
    public var range: ClosedRange<Int> {
        switch self {
        case .good: 0...50
        case .moderate: 51...100
        case .unhealthyForSensitiveGroups: 101...150
        case .unhealthy: 151...200
        case .veryUnhealthy: 201...300
        case .hazardous: 301...Int.max
        }
    }

    /// The EPA's name for the band.
    public var title: String {
        switch self {
        case .good: "Good"
        case .moderate: "Moderate"
        case .unhealthyForSensitiveGroups: "Unhealthy for Sensitive Groups"
        case .unhealthy: "Unhealthy"
        case .veryUnhealthy: "Very Unhealthy"
        case .hazardous: "Hazardous"
        }
    }

    /// The EPA's colour for the band, as hex RGB.
    public var colorHex: String {
        switch self {
        case .good: "#00E400"
        case .moderate: "#FFFF00"
        case .unhealthyForSensitiveGroups: "#FF7E00"
        case .unhealthy: "#FF0000"
        case .veryUnhealthy: "#8F3F97"
        case .hazardous: "#7E0023"
        }
    }
}
