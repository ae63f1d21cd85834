public import BreezeCore
import FoundationEssentials
import Synchronization

/// Positions from GeoClue 2 on the system bus, behind the same interface as the gpsd source.
///
/// Each session: connect to the bus, watch GeoClue's name, register as GeoClue's agent for our user (2.6 answers
/// `GetClient` only once an agent is there), get a client, set `DesktopId`, `RequestedAccuracyLevel` and
/// `DistanceThreshold`, subscribe to `LocationUpdated` before `Start`, then read each new Location object whole.
/// Every call has a timeout; every refusal becomes a permission state with the fix a person can apply. When
/// GeoClue exits (it does after 60 s without clients) or the bus drops us, the session ends and a new one starts
/// after a backoff, on a new connection, so no old match rule or client path survives.
public final class GeoClueSource: LocationSource {
    public struct Configuration: Sendable {
        /// The system bus to use; nil: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
        public var busAddress: String?
        /// The desktop id GeoClue knows us by (its configuration's app sections and agent whitelist).
        public var desktopID = "breezed"
        /// 8 exact (the NMEA source needs it), 6 street, 5 city, 4 neighbourhood: lower is a privacy option.
        public var accuracyLevel: UInt32 = 8
        /// Metres GeoClue waits for before it reports a new position.
        public var distanceThreshold: UInt32 = 100
        /// Act as GeoClue's agent for our own user.
        public var agent = true
        /// Seconds any call to GeoClue may take.
        public var callTimeout = 5.0
        public var backoff = RetryBackoff(initial: 1, maximum: 60)
        /// The clock the backoff waits on.
        public var clock: any ServiceClock = .system
        /// After a refusal by policy, wait this long before asking again.
        public var refusedRetry = 300.0

        public init() {}
    }

    public let kind = LocationSourceKind.geoclue
    public var sendsFixesContinuously: Bool { false }
    public let configuration: Configuration

    static let service = "org.freedesktop.GeoClue2"
    static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    static let agentPath = "/org/freedesktop/GeoClue2/Agent"

    private struct State {
        var task: Task<Void, Never>?
        var lifecycle = SourceLifecycle()
        var enabled = true
        var bus: BusConnection?
    }

    private let state = Mutex(State())

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public func events() -> AsyncStream<LocationSourceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: LocationSourceEvent.self, bufferingPolicy: .bufferingNewest(256))
        guard state.withLock({ $0.lifecycle.start() }) else {
            continuation.finish()
            return stream
        }
        let task = Task { [self] in
            await run(continuation)
            continuation.finish()
        }
        state.withLock { $0.task = task }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    public func stop() {
        let (task, bus) = state.withLock { state in
            state.lifecycle.stop()
            return (state.task, state.bus)
        }
        task?.cancel()
        bus?.close()
    }

    /// The privacy switch, through the agent: off answers GeoClue with `MaxAccuracyLevel` 0, and it then refuses.
    public func setEnabled(_ enabled: Bool) {
        let bus = state.withLock { state -> BusConnection? in
            state.enabled = enabled
            return state.bus
        }
        bus?.emit(
            path: Self.agentPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            [
                .string("org.freedesktop.GeoClue2.Agent"),
                DBusValue.properties([("MaxAccuracyLevel", .uint32(enabled ? configuration.accuracyLevel : 0))]),
                .array(signature: "s", []),
            ])
    }

    var maxAccuracyLevel: UInt32 {
        state.withLock { $0.enabled } ? configuration.accuracyLevel : 0
    }

    private func run(_ continuation: AsyncStream<LocationSourceEvent>.Continuation) async {
        var backoff = configuration.backoff
        while !Task.isCancelled {
            continuation.yield(.connecting)
            let outcome = await GeoClueSession(source: self, continuation: continuation).run()
            if Task.isCancelled { break }
            let delay: Double
            switch outcome {
            case .stopped:
                return
            case .lost(let reason, let hadFix):
                if hadFix { backoff.reset() }
                delay = backoff.nextDelay()
                continuation.yield(.lost(reason.retrying(at: configuration.clock.wallTime + delay)))
            case .refused:
                delay = configuration.refusedRetry
            }
            guard (try? await configuration.clock.sleep(seconds: delay)) != nil else { break }
        }
    }

    func register(_ bus: BusConnection?) -> Bool {
        state.withLock { state in
            guard !state.lifecycle.isStopped else { return false }
            state.bus = bus
            return true
        }
    }

    /// Heights a receiver on or above the ground can report, metres: the deepest ocean floor to far above any
    /// aircraft.
    static let altitudeRange = -12_000.0...1_000_000.0

    /// A fix from a GeoClue Location object's properties; nil when latitude or longitude is missing, of another
    /// type, or out of range.
    public static func fix(fromLocation properties: [String: DBusValue]) -> LocationFix? {
        guard let latitude = properties["Latitude"]?.double, let longitude = properties["Longitude"]?.double,
            let coordinate = Coordinate(validatingLatitude: latitude, longitude: longitude)
        else { return nil }
        // GeoClue marks unknown values: altitude -Double.greatestFiniteMagnitude, speed and heading -1. Anything else
        // outside a value's range (infinite, NaN, a heading of 720) is left out as well.
        func value(_ name: String, in range: some RangeExpression<Double>) -> Double? {
            properties[name]?.double.flatMap { $0.isFinite && range.contains($0) ? $0 : nil }
        }
        let altitude = value("Altitude", in: Self.altitudeRange)
        let speed = value("Speed", in: 0...Double.greatestFiniteMagnitude)
        let heading = value("Heading", in: 0..<360)
        let accuracy = value("Accuracy", in: 0...Double.greatestFiniteMagnitude)
        var time: Double?
        if case .structure(let parts)? = properties["Timestamp"]?.unwrapped, parts.count == 2,
            let seconds = parts[0].uint64.flatMap({ Int64(exactly: $0) }), let microseconds = parts[1].uint64,
            microseconds < 1_000_000
        {
            time = Double(seconds) + Double(microseconds) / 1e6
        }
        return LocationFix(
            coordinate: coordinate, mode: altitude == nil ? .twoD : .threeD, altitude: altitude,
            horizontalAccuracy: accuracy, speed: speed, track: heading, receiverTime: time,
            receivedAt: .now, receivedWallTime: Date().timeIntervalSince1970, source: .geoclue)
    }

}
