public import BreezeCore
import BreezeSystem
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A connection to a broker kept up by a thread of its own, publishing retained state from an outbox.
///
/// The thread is the project's own (`DedicatedThread`), not libmosquitto's `mosquitto_loop_start`: it waits on the
/// broker's socket and on a wake-up pipe together, so a new state is sent as soon as it is set (no polling
/// interval), the outbox is read only when libmosquitto has written everything before it (so the library's own
/// queue never grows), the reconnection backoff is the project's `RetryBackoff` with its reason kept for
/// `breezectl status`, and a stop publishes `offline` and disconnects cleanly before the thread ends.
///
/// `publish` takes a lock for a dictionary update and never waits for the network: callers (the daemon's actor)
/// are never held up by the broker. State messages go with QoS 0, retained: once written they are the broker's,
/// and libmosquitto keeps no copy waiting for an acknowledgement; after every reconnection the whole outbox is sent
/// again. The availability topic goes with QoS 1, as the last will.
public final class MQTTLink: Sendable {
    public struct Configuration: Sendable {
        public var broker: MQTTBroker
        public var clientID: String
        /// Seconds between pings while idle (MQTT's keep-alive; the broker drops the client after 1.5 times it).
        public var keepalive = 60
        /// The CA file for `mqtts://`; nil: the system's authorities.
        public var caFile: String?
        /// `online` here on each connection, `offline` as the last will and on a clean stop.
        public var availabilityTopic: String?
        public var backoff = RetryBackoff(initial: 0.5, maximum: 30)
        /// Seconds a stop waits for the last bytes to be written before it closes the connection anyway.
        public var stopTimeout = 2.0

        public init(broker: MQTTBroker, clientID: String) {
            self.broker = broker
            self.clientID = clientID
        }
    }

    public enum State: Sendable, Hashable {
        case connecting
        case connected
        /// The broker could not be reached, or the connection ended; the link tries again after a while.
        case unreachable(reason: String)
        /// The broker answered and refused the connection (a wrong user or password, a client it does not
        /// authorise); the link tries again after a while, in case the broker's settings change.
        case refused(reason: String)
        case stopped

        public var name: String {
            switch self {
            case .connecting: "connecting"
            case .connected: "connected"
            case .unreachable: "unreachable"
            case .refused: "refused"
            case .stopped: "stopped"
            }
        }

        public var reason: String? {
            switch self {
            case .unreachable(let reason), .refused(let reason): reason
            case .connecting, .connected, .stopped: nil
            }
        }

        /// The state a failed connection leaves.
        static func failed(_ error: MQTTError) -> State {
            error.code == .refused ? .refused(reason: error.message) : .unreachable(reason: error.message)
        }
    }

    private struct Shared {
        var outbox = MQTTOutbox()
        var state = State.connecting
        var stopping = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var connections = 0
    }

    public let configuration: Configuration
    private let shared = Mutex(Shared())
    private let wakeup = WakeupPipe()
    private let onState: @Sendable (State) -> Void

    /// `onState` is called on the link's thread at each change of state.
    public init(configuration: Configuration, onState: @escaping @Sendable (State) -> Void = { _ in }) {
        self.configuration = configuration
        self.onState = onState
    }

    /// Starts the thread; the first connection is attempted at once.
    public func start() {
        DedicatedThread.start(name: "breeze.mqtt") { [self] in self.run() }
    }

    /// Sets the retained state of `topic` (an empty payload removes it from the broker). Returns false when the
    /// outbox refuses it (past a bound). Never waits for the network.
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8]) -> Bool {
        let accepted = shared.withLock { $0.outbox.set(topic, payload) }
        if accepted { wakeup.wake() }
        return accepted
    }

    public var state: State { shared.withLock { $0.state } }

    /// How many connections were made (accepted by the broker) so far.
    public var connections: Int { shared.withLock { $0.connections } }

    /// Topics and bytes held in the outbox.
    public var outboxSize: (topics: Int, bytes: Int) {
        shared.withLock { ($0.outbox.latest.count, $0.outbox.byteCount) }
    }

    /// Publishes `offline` (when connected), disconnects, and returns once the thread has ended, or after
    /// `stopTimeout` and a second more: a thread still in a blocking `mosquitto_connect` (a host that drops SYNs)
    /// does not hold up the daemon's exit.
    public func stop() async {
        await withCheckedContinuation { continuation in
            let done = shared.withLock { shared -> Bool in
                shared.stopping = true
                if shared.finished { return true }
                shared.waiters.append(continuation)
                return false
            }
            if done {
                continuation.resume()
                return
            }
            wakeup.wake()
            DispatchQueue.global().asyncAfter(deadline: .now() + configuration.stopTimeout + 1) { [self] in
                resumeWaiters()
            }
        }
    }

    private func resumeWaiters() {
        let waiters = shared.withLock { shared -> [CheckedContinuation<Void, Never>] in
            defer { shared.waiters.removeAll() }
            return shared.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: The thread

    private var stopping: Bool { shared.withLock { $0.stopping } }

    private func setState(_ state: State) {
        let changed = shared.withLock { shared -> Bool in
            guard shared.state != state else { return false }
            shared.state = state
            if state == .connected { shared.connections += 1 }
            return true
        }
        if changed { onState(state) }
    }

    private func run() {
        var backoff = configuration.backoff
        let session: MQTTSession
        do throws(MQTTError) {
            session = try MQTTSession(clientID: configuration.clientID)
            if let topic = configuration.availabilityTopic {
                try session.setWill(topic: topic, payload: Array("offline".utf8), qos: 1, retain: true)
            }
            if let username = configuration.broker.username {
                try session.setCredentials(username: username, password: configuration.broker.password)
            }
            if configuration.broker.tls { try session.setTLS(caFile: configuration.caFile) }
        } catch {
            setState(.failed(error))
            finish()
            return
        }
        while !stopping {
            // After an outage the state stays `unreachable`, with its reason, until a connection is accepted.
            if state.reason == nil { setState(.connecting) }
            do throws(MQTTError) {
                try session.connect(
                    host: configuration.broker.host, port: configuration.broker.port,
                    keepalive: configuration.keepalive)
                try serve(session, backoff: &backoff)
            } catch {
                setState(.failed(error))
            }
            guard !stopping else { break }
            // Waits on the pipe alone: a stop ends the wait at once.
            _ = wakeup.wait(for: nil, timeout: backoff.nextDelay())
            wakeup.drain()
        }
        finish()
    }

    /// Serves one connection until it fails (throws) or a stop is asked for (returns, after a clean goodbye).
    private func serve(_ session: MQTTSession, backoff: inout RetryBackoff) throws(MQTTError) {
        var accepted = false
        while true {
            if stopping {
                try goodbye(session, accepted: accepted)
                return
            }
            _ = try session.service(wakeFD: wakeup.readEnd, timeout: 1)
            wakeup.drain()
            if !accepted, session.connack == 0 {
                accepted = true
                backoff.reset()
                if let topic = configuration.availabilityTopic {
                    try session.publish(topic: topic, payload: Array("online".utf8), qos: 1, retain: true)
                }
                shared.withLock { $0.outbox.reconnected() }
                setState(.connected)
            }
            // Only once libmosquitto has written what it holds: its queue never grows behind a slow broker.
            if accepted, !session.wantsWrite {
                let messages = shared.withLock { $0.outbox.take() }
                for message in messages {
                    try session.publish(topic: message.topic, payload: message.payload, qos: 0, retain: true)
                }
                if !messages.isEmpty { try session.writePackets() }
            }
        }
    }

    /// `offline`, then DISCONNECT, written out within `stopTimeout`.
    private func goodbye(_ session: MQTTSession, accepted: Bool) throws(MQTTError) {
        if accepted, let topic = configuration.availabilityTopic {
            try session.publish(topic: topic, payload: Array("offline".utf8), qos: 0, retain: true)
        }
        session.disconnect()
        let deadline = ContinuousClock.now + .seconds(configuration.stopTimeout)
        while session.socket >= 0, session.wantsWrite, ContinuousClock.now < deadline {
            _ = try session.service(wakeFD: -1, timeout: 0.2)
        }
    }

    private func finish() {
        setState(.stopped)
        shared.withLock { $0.finished = true }
        resumeWaiters()
    }
}
