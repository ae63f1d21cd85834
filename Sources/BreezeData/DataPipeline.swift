public import BreezeCore
import BreezeWeb
import Foundation

/// fetchAllData: air quality, pollen and climate for the current place, each fetched on its own, cached, retried,
/// refreshed when it ages, and kept through outages.
///
/// Each dataset runs as its own task for the current place, so each is published as soon as it arrives. A new
/// place cancels the old place's tasks; asking again for the current place joins them. A place must stay current
/// for `settle` before any request goes out, so a burst of location changes costs nothing; the request budget
/// (in the HTTP client) caps what remains.
public actor DataPipeline {
    public struct Configuration: Sendable {
        /// How long each dataset stays fresh: air quality hourly, pollen and climate daily.
        public var freshness: [Dataset: Double] = [.air: 3_600, .pollen: 86_400, .climate: 86_400]
        /// How long a place must stay current before its data is requested.
        public var settle: Duration = .seconds(2)
        /// Spacing of retries after failures (a server's `Retry-After` is honoured when longer).
        public var retry = RetryBackoff(initial: 10, maximum: 900, multiplier: 2, jitter: 0.3)
        /// After a request the server refused (400) or a body too large, wait this long before trying again.
        public var refusedRetry: Double = 3_600

        public init() {}
    }

    public typealias Publish = @Sendable (DataUpdate) -> Void

    private let sources: DataSources
    private let cache: DataCache?
    private let configuration: Configuration
    private let clock: any ServiceClock
    private let publish: Publish
    private let log: @Sendable (String) -> Void

    private var current: Place?
    private var tasks: [Dataset: Task<Void, Never>] = [:]
    /// The tasks of earlier places, until they end: a place revisited waits for its old tasks, so two fetches for
    /// one place never overlap.
    private var ending: [String: Task<Void, Never>] = [:]

    public init(
        sources: DataSources, cache: DataCache?, configuration: Configuration = Configuration(),
        clock: any ServiceClock = .system,
        log: @escaping @Sendable (String) -> Void = { _ in },
        publish: @escaping Publish
    ) {
        self.sources = sources
        self.cache = cache
        self.configuration = configuration
        self.clock = clock
        self.log = log
        self.publish = publish
    }

    /// The place whose data is being kept.
    public var place: Place? { current }

    /// Fetches everything for `place`: a new place replaces the current one; the current place joins what is
    /// running.
    public func fetchAllData(for place: Place) {
        if let current, current.id == place.id, current.coordinate == place.coordinate, !tasks.isEmpty { return }
        stop()
        current = place
        startTasks(for: place, force: false)
    }

    /// Fetches every dataset for the current place now, fresh or not (the `refresh` command).
    public func refresh() {
        guard let place = current else { return }
        stop()
        current = place
        startTasks(for: place, force: true)
    }

    /// Cancels all fetching.
    public func stop() {
        guard let place = current else { return }
        for (dataset, task) in tasks {
            task.cancel()
            let key = Self.key(dataset, place)
            let previous = ending[key]
            ending[key] = Task { [weak self] in
                await previous?.value
                await task.value
                await self?.ended(key)
            }
        }
        tasks = [:]
        current = nil
    }

    private func ended(_ key: String) {
        ending[key] = nil
    }

    private static func key(_ dataset: Dataset, _ place: Place) -> String {
        "\(dataset.rawValue)-\(place.id)-\(place.coordinate.latitude),\(place.coordinate.longitude)"
    }

    private func startTasks(for place: Place, force: Bool) {
        tasks[.air] = start(.air, place, force, sources.air, wrap: DataUpdate.air, available: { _ in nil })
        tasks[.pollen] = start(.pollen, place, force, sources.pollen, wrap: DataUpdate.pollen) { report in
            report.isAvailable ? nil : report.provider == .openMeteo
                ? "no pollen data here: Open-Meteo covers Europe in season; a Google Pollen key covers the world"
                : "no pollen data for this place today"
        }
        tasks[.climate] = start(.climate, place, force, sources.climate, wrap: DataUpdate.climate) { report in
            report.points.isEmpty ? "no temperature record for this place" : nil
        }
    }

    private func start<Report: Codable & Hashable & Sendable & Plausible>(
        _ dataset: Dataset, _ place: Place, _ force: Bool,
        _ fetch: @escaping @Sendable (Coordinate) async throws(WebError) -> Report,
        wrap: @escaping @Sendable (DatasetState<Report>) -> DataUpdate,
        available: @escaping @Sendable (Report) -> String?
    ) -> Task<Void, Never> {
        let previous = ending[Self.key(dataset, place)]
        let run = DatasetRun(
            dataset: dataset, place: place, fetch: fetch, wrap: wrap, unavailableReason: available, cache: cache,
            configuration: configuration, clock: clock, publish: publish, log: log)
        return Task {
            await previous?.value
            await run.run(force: force)
        }
    }
}

/// One dataset for one place: publish what the cache holds, wait for the place to settle, then fetch, retry and
/// refresh until cancelled.
struct DatasetRun<Report: Codable & Hashable & Sendable & Plausible>: Sendable {
    let dataset: Dataset
    let place: Place
    let fetch: @Sendable (Coordinate) async throws(WebError) -> Report
    let wrap: @Sendable (DatasetState<Report>) -> DataUpdate
    let unavailableReason: @Sendable (Report) -> String?
    let cache: DataCache?
    let configuration: DataPipeline.Configuration
    /// Timers (settling, refresh, backoff) and ages (`fetchedAt`, in wall time).
    let clock: any ServiceClock
    let publish: DataPipeline.Publish
    let log: @Sendable (String) -> Void

    private func now() -> Double { clock.wallTime }

    func run(force: Bool) async {
        let freshness = configuration.freshness[dataset] ?? 3_600
        var last = cache?.load(dataset, for: place, as: Report.self)
        // Fetched "in the future" (a clock set back, an edited file): it would count as fresh until then.
        if let entry = last, entry.fetchedAt > now() { last = nil }
        var force = force
        if let last {
            let fresh = now() - last.fetchedAt < freshness
            send(fresh ? status(of: last.report) : .stale(reason: nil), last)
        } else {
            send(.loading, nil)
        }
        do {
            try await clock.sleep(for: configuration.settle)
        } catch {
            return
        }
        var backoff = configuration.retry
        while !Task.isCancelled {
            if let entry = last, !force, now() - entry.fetchedAt < freshness {
                // Fresh: sleep until it ages, then fetch again.
                let wait = entry.fetchedAt + freshness - now()
                guard (try? await clock.sleep(seconds: max(0.001, wait))) != nil else { return }
                continue
            }
            force = false
            do throws(WebError) {
                let report = try await fetch(place.coordinate)
                // The web clients check their answers; a source that did not must not reach the cache or clients.
                do {
                    try report.checkPlausible()
                } catch {
                    throw WebError(.badPayload, error.description)
                }
                let entry = DataCache.Entry(place: place, fetchedAt: now(), report: report)
                if Task.isCancelled { return }
                last = entry
                if let error = cache?.store(report, dataset, for: place, fetchedAt: entry.fetchedAt) {
                    log("cache.write dataset=\(dataset.rawValue) error=\"\(error)\"")
                }
                backoff.reset()
                send(status(of: report), entry)
            } catch {
                if Task.isCancelled { return }
                log("fetch.failed dataset=\(dataset.rawValue) place=\"\(place.displayName)\" code=\(error.code.rawValue) reason=\"\(error.reason)\"")
                let reason = "\(error.code.rawValue): \(error)"
                send(last == nil ? .failed(reason: reason) : .stale(reason: reason), last)
                var delay = backoff.nextDelay()
                if !error.isRetryable { delay = max(delay, configuration.refusedRetry) }
                if let retryAfter = error.retryAfter { delay = max(delay, retryAfter) }
                guard (try? await clock.sleep(seconds: delay)) != nil else { return }
            }
        }
    }

    private func status(of report: Report) -> DatasetStatus {
        unavailableReason(report).map { .unavailable(reason: $0) } ?? .fresh
    }

    private func send(_ status: DatasetStatus, _ entry: DataCache.Entry<Report>?) {
        publish(wrap(DatasetState(place: place, status: status, report: entry?.report, fetchedAt: entry?.fetchedAt)))
    }
}
