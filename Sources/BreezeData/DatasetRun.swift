import BreezeCore
import BreezeWeb

/// What every dataset's run shares: the cache, the pipeline's configuration, its clock, where updates go and the
/// log.
struct DatasetRunEnvironment: Sendable {
    let cache: DataCache?
    let configuration: DataPipeline.Configuration
    /// Timers (settling, refresh, backoff) and ages (`fetchedAt`, in wall time).
    let clock: any ServiceClock
    /// Hands an update to the pipeline, which publishes it only while the run's place is still the current one: a
    /// run superseded by a new place (or stopped) never publishes again, however late its answer arrives.
    let publish: @Sendable (DataUpdate) async -> Void
    let log: @Sendable (String) -> Void
}

/// One dataset for one place: publish what the cache holds, wait for the place to settle, then fetch, retry and
/// refresh until cancelled.
struct DatasetRun<Report: DatasetReport>: Sendable {
    let place: Place
    let fetch: @Sendable (Coordinate) async throws(WebError) -> Report
    let environment: DatasetRunEnvironment

    private var dataset: Dataset { Report.dataset }
    private var cache: DataCache? { environment.cache }
    private var configuration: DataPipeline.Configuration { environment.configuration }
    private var log: @Sendable (String) -> Void { environment.log }
    private func now() -> Double { environment.clock.wallTime }

    func run(force: Bool) async {
        let freshness = configuration.freshness[dataset] ?? dataset.defaultFreshness
        var last = cachedEntry()
        var force = force
        if let last {
            let fresh = now() - last.fetchedAt < freshness
            await send(fresh ? status(of: last.report) : .stale(reason: nil), last)
        } else {
            await send(.loading, nil)
        }
        do {
            try await environment.clock.sleep(for: configuration.settle)
        } catch {
            return
        }
        var backoff = configuration.retry
        var failures = FailureLog()
        while !Task.isCancelled {
            if let entry = last, !force, now() - entry.fetchedAt < freshness {
                // Fresh: sleep until it ages, then fetch again; in steps of `wallClockCheck` at most, since the age is
                // wall time, which a step of the clock or a suspend moves while this sleep does not see it.
                let wait = min(entry.fetchedAt + freshness - now(), configuration.wallClockCheck)
                guard (try? await environment.clock.sleep(seconds: max(0.001, wait))) != nil else { return }
                continue
            }
            // Found old well past its freshness (the wall clock stepped forward, or the machine slept): stale at once,
            // not "fresh" and days old while the fetch is on its way.
            if let entry = last, !force, now() - entry.fetchedAt >= freshness + configuration.wallClockCheck {
                await send(.stale(reason: nil), entry)
            }
            force = false
            do throws(WebError) {
                let entry = try await fetchAndStore()
                if Task.isCancelled { return }
                last = entry
                backoff.reset()
                if let repeats = failures.recovered() {
                    log(
                        "fetch.recovered dataset=\(dataset.rawValue) place=\"\(place.displayName)\" failures=\(repeats)"
                    )
                }
                await send(status(of: entry.report), entry)
            } catch {
                if Task.isCancelled { return }
                let reason = "\(error.code.rawValue): \(error)"
                // Once per change of reason, with how often the one before came again.
                if let repeats = failures.failed(reason) {
                    log(
                        "fetch.failed dataset=\(dataset.rawValue) place=\"\(place.displayName)\" code=\(error.code.rawValue) reason=\"\(error.reason)\""
                            + (repeats > 0 ? " previous_repeated=\(repeats)" : ""))
                }
                var delay = backoff.nextDelay()
                if !error.isRetryable { delay = max(delay, configuration.refusedRetry) }
                if let retryAfter = error.retryAfter { delay = max(delay, retryAfter) }
                let retryAt = now() + delay
                if let entry = last, now() - entry.fetchedAt < freshness, status(of: entry.report) == .fresh {
                    // Fresh data stays fresh when a refresh fails; the failure goes with it.
                    await send(status(of: entry.report), entry, lastFailure: reason, retryAt: retryAt)
                } else {
                    await send(last == nil ? .failed(reason: reason) : .stale(reason: reason), last, retryAt: retryAt)
                }
                guard (try? await environment.clock.sleep(seconds: delay)) != nil else { return }
            }
        }
    }

    /// The dataset at the place now, for a look (`DataPipeline.look`): the cache's entry while it is fresh, else
    /// fetched once; a failure keeps what the cache holds, as `stale`, or is `failed`.
    func look() async -> DatasetState<Report> {
        let freshness = configuration.freshness[dataset] ?? dataset.defaultFreshness
        let cached = cachedEntry()
        if let cached, now() - cached.fetchedAt < freshness { return state(status(of: cached.report), cached) }
        do throws(WebError) {
            let entry = try await fetchAndStore()
            return state(status(of: entry.report), entry)
        } catch {
            let reason = "\(error.code.rawValue): \(error)"
            return state(cached == nil ? .failed(reason: reason) : .stale(reason: reason), cached)
        }
    }

    /// The dataset at the place when a look had no answer in time (`reason`): what the cache holds, as `stale`, or
    /// `failed`.
    func unanswered(_ reason: String) -> DatasetState<Report> {
        let cached = cachedEntry()
        return state(cached == nil ? .failed(reason: reason) : .stale(reason: reason), cached)
    }

    /// The cache's entry for the place, unless it was fetched "in the future" (a clock set back, an edited file):
    /// it would count as fresh until then.
    private func cachedEntry() -> DataCache.Entry<Report>? {
        guard let entry = cache?.load(dataset, for: place, as: Report.self), entry.fetchedAt <= now() else {
            return nil
        }
        return entry
    }

    /// Fetches the report, checks it and caches it (a failure to cache is logged, never thrown).
    private func fetchAndStore() async throws(WebError) -> DataCache.Entry<Report> {
        let report = try await fetch(place.coordinate)
        // The web clients check their answers; a source that did not must not reach the cache or clients.
        do {
            try report.checkPlausible()
        } catch {
            throw WebError(.badPayload, error.description)
        }
        let entry = DataCache.Entry(place: place, fetchedAt: now(), report: report)
        if Task.isCancelled { return entry }
        if let error = cache?.store(report, dataset, for: place, fetchedAt: entry.fetchedAt) {
            log("cache.write dataset=\(dataset.rawValue) error=\"\(error)\"")
        }
        return entry
    }

    private func state(_ status: DatasetStatus, _ entry: DataCache.Entry<Report>?) -> DatasetState<Report> {
        DatasetState(place: place, status: status, report: entry?.report, fetchedAt: entry?.fetchedAt)
    }

    private func status(of report: Report) -> DatasetStatus {
        report.unavailableReason.map { .unavailable(reason: $0) } ?? .fresh
    }

    private func send(
        _ status: DatasetStatus, _ entry: DataCache.Entry<Report>?, lastFailure: String? = nil,
        retryAt: Double? = nil
    ) async {
        await environment.publish(
            DataUpdate(
                DatasetState(
                    place: place, status: status, report: entry?.report, fetchedAt: entry?.fetchedAt,
                    lastFailure: lastFailure, retryAt: retryAt)))
    }
}
