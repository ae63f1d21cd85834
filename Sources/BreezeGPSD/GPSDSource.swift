public import BreezeCore
public import BreezeSystem
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Positions from gpsd, read through libgps on a dedicated thread that waits on gpsd's descriptor (never a
/// sleep-poll loop, never on the cooperative pool). The thread may run the work of the fixes it hands on itself,
/// before its next wait (`ThreadLoan`). Rides through gpsd restarts: each failure is reported, then retried with
/// capped exponential backoff and jitter (reset once a connection works).
public final class GPSDSource: LocationSource {
    public let kind = LocationSourceKind.gpsd
    public let address: GPSDAddress
    /// How long to wait for gpsd's first words after connecting before counting the attempt as failed.
    let greetingTimeout: Double
    private let backoff: RetryBackoff
    /// The clock the reconnect backoff waits on.
    private let clock: any ServiceClock
    /// How long a repeated position may be held back (`UnchangedFixThrottle`); zero passes on every fix.
    public let unchangedFixInterval: Duration
    /// How the reader thread runs the work of what it hands on (`ThreadLoan`).
    private let threadLoan: ThreadLoan
    private let wakeup = WakeupPipe()
    private let state = Mutex(State())

    private struct State {
        var lifecycle = SourceLifecycle()
        /// The backoff timer that may still wake the thread; cleared (under the lock) before the pipe is drained,
        /// so a timer that fires late never leaves a wake-up behind for the next wait.
        var backoffTimer: Int?
        var timers = 0
        /// Location was switched on again: the next fix goes to the service whatever it repeats.
        var passNextFix = false
    }

    public init(
        address: GPSDAddress = GPSDAddress(), backoff: RetryBackoff = RetryBackoff(initial: 0.5, maximum: 30),
        greetingTimeout: Double = 5, clock: any ServiceClock = .system, unchangedFixInterval: Duration = .zero,
        threadLoan: ThreadLoan = .none
    ) {
        self.address = address
        self.threadLoan = threadLoan
        self.unchangedFixInterval = unchangedFixInterval
        self.backoff = backoff
        self.clock = clock
        self.greetingTimeout = greetingTimeout
    }

    public func events() -> AsyncStream<LocationSourceEvent> {
        let queue = SourceEventQueue()
        guard state.withLock({ $0.lifecycle.start() }) else {
            // Started before (or stopped): an empty stream, whose end stops nothing.
            queue.finish()
            return queue.stream(ended: {})
        }
        let stream = queue.stream(ended: { [weak self] in self?.stop() })
        DedicatedThread.start(name: "breeze.gpsd") { [self] in
            self.run(queue)
            queue.finish()
        }
        return stream
    }

    public func stop() {
        state.withLock { $0.lifecycle.stop() }
        wakeup.wake()
    }

    /// Switched on, gpsd is asked at once: the first fix goes without waiting for the unchanged-fix throttle, and a
    /// reconnect waiting out its backoff is tried now.
    public func setEnabled(_ enabled: Bool) {
        guard enabled else { return }
        state.withLock { state in
            state.passNextFix = true
            if state.backoffTimer != nil { wakeup.wake() }
        }
    }

    private var isStopped: Bool {
        state.withLock { $0.lifecycle.isStopped }
    }

    // MARK: - The thread

    private func run(_ events: SourceEventQueue) {
        var backoff = self.backoff
        var filter = FixFilter()
        var throttle = UnchangedFixThrottle(interval: unchangedFixInterval)
        while !isStopped {
            events.yield(.connecting)
            var failure: GPSDError?
            do {
                try session(events, backoff: &backoff, filter: &filter, throttle: &throttle)
            } catch {
                failure = error
            }
            let delay = backoff.nextDelay()
            if let failure {
                let reason = Self.reason(for: failure, address: address)
                events.yield(.lost(reason.retrying(at: clock.wallTime + delay)))
            }
            if isStopped { break }
            waitForBackoff(seconds: delay)
        }
    }

    /// Blocks the thread for `seconds` on the clock, or until stopped: a timer task on the clock wakes the pipe.
    private func waitForBackoff(seconds: Double) {
        let deadline = clock.now + .seconds(seconds)
        let timer = state.withLock { state in
            state.timers += 1
            state.backoffTimer = state.timers
            return state.timers
        }
        let task = Task { [self] in
            guard (try? await clock.sleep(until: deadline)) != nil else { return }
            state.withLock { state in
                if state.backoffTimer == timer { wakeup.wake() }
            }
        }
        if !isStopped { _ = wakeup.wait(for: nil, timeout: nil) }
        task.cancel()
        state.withLock { $0.backoffTimer = nil }
        wakeup.drain()
    }

    /// One connection, from connect to loss. Connecting and the first read count as one attempt: right after a
    /// restart, or when gpsd has no free client slots, the connect succeeds and the first read fails.
    private func session(
        _ events: SourceEventQueue, backoff: inout RetryBackoff,
        filter: inout FixFilter, throttle: inout UnchangedFixThrottle
    ) throws(GPSDError) {
        let connection = try GPSDConnection(address: address)
        defer { connection.close() }
        try connection.watch()
        guard wakeup.wait(for: connection.fileDescriptor, timeout: greetingTimeout) else {
            if isStopped { return }
            throw GPSDError(.silent, "gpsd at \(address) said nothing for \(Int(greetingTimeout)) s after connecting")
        }
        let first: [[UInt8]]
        do {
            first = try connection.readAvailable()
        } catch {
            throw GPSDError(
                .refused,
                "gpsd at \(address) closed the connection at once: it may be restarting or "
                    + "serving its maximum number of clients")
        }
        backoff.reset()
        filter.reset()
        events.yield(.connected)
        throttle.reset()
        threadLoan.run { deliver(first, to: events, filter: &filter, throttle: &throttle) }
        while !isStopped {
            guard wakeup.wait(for: connection.fileDescriptor, timeout: nil) else {
                wakeup.drain()
                continue
            }
            let lines = try connection.readAvailable()
            threadLoan.run { deliver(lines, to: events, filter: &filter, throttle: &throttle) }
        }
    }

    private func deliver(
        _ lines: [[UInt8]], to events: SourceEventQueue, filter: inout FixFilter,
        throttle: inout UnchangedFixThrottle
    ) {
        for line in lines {
            guard let event = filter.event(forLine: line, source: kind) else { continue }
            if throttle.interval > .zero,
                state.withLock({ state in
                    defer { state.passNextFix = false }
                    return state.passNextFix
                })
            {
                throttle.reset()
            }
            if throttle.passes(event) { events.yield(event) }
        }
    }

    static func reason(for error: GPSDError, address: GPSDAddress) -> PermissionReason {
        switch error.code {
        case .unreachable:
            PermissionReason(
                code: .notRunning, message: "gpsd is not running on \(address)",
                hint: "start gpsd ('systemctl start gpsd') or set [gpsd] address=HOST:PORT in breezed.conf")
        case .hostNotFound:
            PermissionReason(
                code: .notRunning, message: error.message,
                hint:
                    "check [gpsd] address in breezed.conf, and that the name resolves ('getent hosts \(address.host)')")
        case .badAddress:
            PermissionReason(
                code: .notRunning, message: error.message, hint: "set [gpsd] address=HOST:PORT in breezed.conf")
        case .system:
            PermissionReason(code: .notRunning, message: error.message, hint: "breezed tries again; its log says more")
        case .refused:
            PermissionReason(
                code: .busy, message: error.message,
                hint: "if it persists, gpsd has too many clients: stop some ('gpspipe', 'cgps') or restart gpsd")
        case .lost:
            PermissionReason(code: .lost, message: error.message, hint: "breezed reconnects when gpsd is back")
        case .silent:
            PermissionReason(
                code: .notRunning, message: error.message,
                hint: "check that \(address) is gpsd and not another service")
        }
    }
}
