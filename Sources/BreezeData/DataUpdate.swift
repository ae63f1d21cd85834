public import BreezeCore

/// One dataset's new state for the current place, as the pipeline publishes it.
public enum DataUpdate: Hashable, Sendable {
    case air(DatasetState<AirQualityReport>)
    case pollen(DatasetState<PollenReport>)
    case climate(DatasetState<ClimateReport>)

    public var dataset: Dataset {
        switch self {
        case .air: .air
        case .pollen: .pollen
        case .climate: .climate
        }
    }

    public var status: DatasetStatus {
        switch self {
        case .air(let state): state.status
        case .pollen(let state): state.status
        case .climate(let state): state.status
        }
    }

    public var place: Place {
        switch self {
        case .air(let state): state.place
        case .pollen(let state): state.place
        case .climate(let state): state.place
        }
    }
}
