/// The pollutants the daemon reports, all as mass concentrations in µg/m³.
public enum Pollutant: String, CaseIterable, Sendable, Codable {
    case pm25 = "pm2_5"
    case pm10
    case nitrogenDioxide = "nitrogen_dioxide"
    case sulphurDioxide = "sulphur_dioxide"
    case ozone
    case carbonMonoxide = "carbon_monoxide"

    public var symbol: String {
        switch self {
        case .pm25: "PM2.5"
        case .pm10: "PM10"
        case .nitrogenDioxide: "NO₂"
        case .sulphurDioxide: "SO₂"
        case .ozone: "O₃"
        case .carbonMonoxide: "CO"
        }
    }

    public var title: String {
        switch self {
        case .pm25: "Fine particles"
        case .pm10: "Coarse particles"
        case .nitrogenDioxide: "Nitrogen dioxide"
        case .sulphurDioxide: "Sulphur dioxide"
        case .ozone: "Ozone"
        case .carbonMonoxide: "Carbon monoxide"
        }
    }

    /// Upper bounds, in µg/m³, of the "good" and "moderate" statuses.
    ///
    /// These are the tops of the US EPA's Good and Moderate AQI breakpoints, with the gases converted from ppb/ppm
    /// at 25 °C (NO₂ 53/100 ppb, SO₂ 35/75 ppb, O₃ 54/70 ppb, CO 4.4/9.4 ppm), so a pollutant's status agrees with
    /// the index it feeds.
    public var limits: (good: Double, moderate: Double) {
        switch self {
        case .pm25: (9.0, 35.4)
        case .pm10: (54, 154)
        case .nitrogenDioxide: (100, 188)
        case .sulphurDioxide: (92, 196)
        case .ozone: (106, 137)
        case .carbonMonoxide: (5_040, 10_760)
        }
    }
}

/// How one pollutant's concentration compares with its limits.
public enum PollutantStatus: String, CaseIterable, Sendable, Codable {
    case good
    case moderate
    case unhealthy
}

/// One pollutant's concentration at one time.
public struct PollutantReading: Hashable, Sendable, Codable {
    public var pollutant: Pollutant
    /// µg/m³; nil when the provider has no value (Open-Meteo sends `null`).
    public var value: Double?

    public init(pollutant: Pollutant, value: Double?) {
        self.pollutant = pollutant
        self.value = value
    }

    /// Nil when there is no value to judge.
    public var status: PollutantStatus? {
        guard let value, value.isFinite, value >= 0 else { return nil }
        let limits = pollutant.limits
        if value <= limits.good { return .good }
        if value <= limits.moderate { return .moderate }
        return .unhealthy
    }
}
