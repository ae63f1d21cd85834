public import BreezeCore
import BreezeWeb

/// A look at a place's data that keeps nothing running: each dataset from the cache while it is fresh, else fetched
/// once (within the HTTP client's budget and slots, which refuse at once rather than queue). Nothing is published and
/// the current place stays as it is; what a fetch brings is cached, so a later `select` of the place shows it at once.
extension DataPipeline {
    /// How long a look waits for the web: a dataset not answered by then is `failed` with a timeout. Under
    /// breezectl's default wait (10 s), so that its user gets the datasets that did answer.
    public static let lookLimit: Duration = .seconds(8)

    /// The state of each of `datasets` (in the order given, the ones without a source left out) at `place`.
    public nonisolated func look(at place: Place, _ datasets: [Dataset]) async -> [DataUpdate] {
        let environment = DatasetRunEnvironment(
            cache: cache, configuration: configuration, clock: clock, publish: { _ in }, log: log)
        let chosen = datasets.compactMap { dataset in sources.all.first { $0.dataset == dataset } }
        var answers: [Dataset: DataUpdate] = [:]
        await withTaskGroup(of: DataUpdate?.self) { group in
            for source in chosen {
                group.addTask { await source.look(place, environment) }
            }
            group.addTask { [clock] in
                // The limit: its nil ends the wait for whatever has not answered.
                try? await clock.sleep(for: Self.lookLimit)
                return nil
            }
            for await answer in group {
                guard let answer else { break }
                answers[answer.dataset] = answer
                if answers.count == chosen.count { break }
            }
            group.cancelAll()
        }
        let reason = "timeout: no answer within \(Self.lookLimit.components.seconds) s"
        return chosen.map { source in
            answers[source.dataset] ?? source.unanswered(place, reason, environment)
        }
    }
}
