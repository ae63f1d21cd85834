public import BreezeCore
public import BreezeWeb

/// Where the pipeline gets each dataset: one `DatasetSource` a dataset, normally the web clients (`web(…)`).
public struct DataSources: Sendable {
    /// The sources, one a dataset, in the order given.
    public let all: [DatasetSource]

    /// The sources given; where two fetch the same dataset, the first is kept.
    public init(_ sources: [DatasetSource]) {
        var seen = Set<Dataset>()
        all = sources.filter { seen.insert($0.dataset).inserted }
    }

    /// Air quality, pollen and climate from the functions given (tests, and sources other than the web).
    public init(
        air: @escaping @Sendable (Coordinate) async throws(WebError) -> AirQualityReport,
        pollen: @escaping @Sendable (Coordinate) async throws(WebError) -> PollenReport,
        climate: @escaping @Sendable (Coordinate) async throws(WebError) -> ClimateReport
    ) {
        self.init([DatasetSource(fetch: air), DatasetSource(fetch: pollen), DatasetSource(fetch: climate)])
    }

    /// Every dataset from its web API: the one list a new dataset's client is added to.
    public static func web(http: HTTPClient, endpoints: WebEndpoints, googlePollenKey: String?) -> DataSources {
        let air = AirQualityClient(http: http, base: endpoints.airQuality)
        let pollen = PollenClient(
            http: http, openMeteo: endpoints.airQuality, google: endpoints.googlePollen, googleKey: googlePollenKey)
        let climate = ClimateClient(http: http, archive: endpoints.archive, forecast: endpoints.forecast)
        let weather = WeatherClient(http: http, base: endpoints.forecast)
        return DataSources([
            DatasetSource { coordinate throws(WebError) in try await air.fetch(coordinate) },
            DatasetSource { coordinate throws(WebError) in try await pollen.fetch(coordinate) },
            DatasetSource { coordinate throws(WebError) in try await climate.fetch(coordinate) },
            DatasetSource { coordinate throws(WebError) in try await weather.fetch(coordinate) },
        ])
    }
}

/// One dataset's source: the function that fetches its report for a coordinate. The report's type names the
/// dataset.
public struct DatasetSource: Sendable {
    public let dataset: Dataset
    let keep: @Sendable (_ place: Place, _ force: Bool, _ environment: DatasetRunEnvironment) async -> Void

    public init<Report: DatasetReport>(fetch: @escaping @Sendable (Coordinate) async throws(WebError) -> Report) {
        dataset = Report.dataset
        keep = { place, force, environment in
            await DatasetRun(place: place, fetch: fetch, environment: environment).run(force: force)
        }
    }
}
