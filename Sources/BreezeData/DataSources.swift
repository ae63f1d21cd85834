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

    /// Each dataset's web client, one a dataset: the one list a new dataset's client is added to.
    public static var webClients: [any DatasetClient.Type] {
        [AirQualityClient.self, PollenClient.self, ClimateClient.self, WeatherClient.self]
    }

    /// Every dataset from its web API (`webClients`).
    public static func web(http: HTTPClient, endpoints: WebEndpoints, googlePollenKey: String?) -> DataSources {
        DataSources(webClients.map { source($0, http: http, endpoints: endpoints, googlePollenKey: googlePollenKey) })
    }

    private static func source<Client: DatasetClient>(
        _ type: Client.Type, http: HTTPClient, endpoints: WebEndpoints, googlePollenKey: String?
    ) -> DatasetSource {
        let client = Client.make(http: http, endpoints: endpoints, googlePollenKey: googlePollenKey)
        return DatasetSource { coordinate throws(WebError) in try await client.fetch(coordinate) }
    }
}

/// One dataset's source: the function that fetches its report for a coordinate. The report's type names the
/// dataset.
public struct DatasetSource: Sendable {
    public let dataset: Dataset
    /// Keeps the dataset for a place until cancelled (`DatasetRun.run`).
    let keep: @Sendable (_ place: Place, _ force: Bool, _ environment: DatasetRunEnvironment) async -> Void
    /// Its state at a place now, fetched once if the cache has nothing fresh (`DatasetRun.look`).
    let look: @Sendable (_ place: Place, _ environment: DatasetRunEnvironment) async -> DataUpdate
    /// Its state at a place when a look had no answer in time (`DatasetRun.unanswered`).
    let unanswered: @Sendable (_ place: Place, _ reason: String, _ environment: DatasetRunEnvironment) -> DataUpdate

    public init<Report: DatasetReport>(fetch: @escaping @Sendable (Coordinate) async throws(WebError) -> Report) {
        dataset = Report.dataset
        keep = { place, force, environment in
            await DatasetRun(place: place, fetch: fetch, environment: environment).run(force: force)
        }
        look = { place, environment in
            DataUpdate(await DatasetRun(place: place, fetch: fetch, environment: environment).look())
        }
        unanswered = { place, reason, environment in
            DataUpdate(DatasetRun(place: place, fetch: fetch, environment: environment).unanswered(reason))
        }
    }
}
