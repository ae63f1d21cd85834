public import BreezeCore

/// A dataset's web client: made from the daemon's endpoints and keys, it fetches the dataset's report for a
/// coordinate, every value checked. `DataSources.webClients` (BreezeData) lists one a dataset.
public protocol DatasetClient: Sendable {
    associatedtype Report: DatasetReport

    /// The client at `endpoints`, its requests going through `http`.
    static func make(http: HTTPClient, endpoints: WebEndpoints, googlePollenKey: String?) -> Self

    func fetch(_ coordinate: Coordinate) async throws(WebError) -> Report
}
