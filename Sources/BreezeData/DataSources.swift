public import BreezeCore
public import BreezeWeb

/// Where the pipeline gets each dataset: normally the web clients (`init(clients…)`).
public struct DataSources: Sendable {
    public var air: @Sendable (Coordinate) async throws(WebError) -> AirQualityReport
    public var pollen: @Sendable (Coordinate) async throws(WebError) -> PollenReport
    public var climate: @Sendable (Coordinate) async throws(WebError) -> ClimateReport

    public init(
        air: @escaping @Sendable (Coordinate) async throws(WebError) -> AirQualityReport,
        pollen: @escaping @Sendable (Coordinate) async throws(WebError) -> PollenReport,
        climate: @escaping @Sendable (Coordinate) async throws(WebError) -> ClimateReport
    ) {
        self.air = air
        self.pollen = pollen
        self.climate = climate
    }

    public init(air: AirQualityClient, pollen: PollenClient, climate: ClimateClient) {
        self.init(
            air: { coordinate throws(WebError) in try await air.fetch(coordinate) },
            pollen: { coordinate throws(WebError) in try await pollen.fetch(coordinate) },
            climate: { coordinate throws(WebError) in try await climate.fetch(coordinate) })
    }
}
