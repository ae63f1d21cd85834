public import BreezeCore
import BreezeWeb
import FoundationEssentials

/// fetchAllData: every dataset (air quality, pollen, climate) for the current place, each fetched on its own, cached, retried,
/// refreshed when it ages, and kept through outages.
///
/// Each dataset runs as its own task for the current place, so each is published as soon as it arrives. A new
/// place cancels the old place's tasks; asking again for the current place joins them. A place must stay current
/// for `settle` before any request goes out, so a burst of location changes costs nothing; the request budget
/// (in the HTTP client) caps what remains.
public actor DataPipeline {
    public struct Configuration: Sendable {
        /// How long each dataset stays fresh; a dataset not named here keeps its `defaultFreshness`.
        public var freshness: [Dataset: Double] = [:]
        /// How long a place must stay current before its data is requested.
        public var settle: Duration = .seconds(2)
        /// Spacing of retries after failures (a server's `Retry-After` is honoured when longer).
        public var retry = RetryBackoff(initial: 10, maximum: 900, multiplier: 2, jitter: 0.3)
        /// After a request the server refused (400) or a body too large, wait this long before trying again.
        public var refusedRetry: Double = 3_600
        /// While a dataset's data is fresh, its age (wall time) is looked at again at least this often (seconds, on the
        /// monotonic clock). The wall clock can move without any time passing here: NTP stepping a clock that booted
        /// at a saved time, a resume from days of suspend. Data that turns out old is said to be stale and fetched
        /// again within this; in steady state it costs each dataset a wake-up this often while it has data.
        public var wallClockCheck: Double = 30

        public init() {}
    }

    public typealias Publish = @Sendable (DataUpdate) -> Void

    let sources: DataSources
    let cache: DataCache?
    let configuration: Configuration
    let clock: any ServiceClock
    private let publish: Publish
    let log: @Sendable (String) -> Void

    private var current: Place?
    /// Counts the sets of tasks started; the current set's updates alone are published.
    private var generation = 0
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

    /// Cancels all fetching. Nothing the cancelled tasks would still send is published.
    public func stop() {
        generation += 1
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

    /// Publishes `update` if the tasks that sent it are still the current ones. Checked and published in one step
    /// on the actor, where `stop` runs too, before any task for a new place starts: nothing a superseded task sends
    /// can follow the new place's updates, whenever its answer arrives.
    private func deliver(_ update: DataUpdate, from generation: Int) {
        guard generation == self.generation else { return }
        publish(update)
    }

    private static func key(_ dataset: Dataset, _ place: Place) -> String {
        "\(dataset.rawValue)-\(place.id)-\(place.coordinate.latitude),\(place.coordinate.longitude)"
    }

    private func startTasks(for place: Place, force: Bool) {
        let generation = generation
        let environment = DatasetRunEnvironment(
            cache: cache, configuration: configuration, clock: clock,
            publish: { [weak self] update in await self?.deliver(update, from: generation) }, log: log)
        for source in sources.all {
            let previous = ending[Self.key(source.dataset, place)]
            tasks[source.dataset] = Task {
                await previous?.value
                await source.keep(place, force, environment)
            }
        }
    }
}
