/// The retained state waiting to go to the broker: the newest payload of each topic, and which of them the broker
/// has not been sent yet. Bounded by topics and by bytes, whatever the broker does: while it is down an update
/// replaces the one before it, so nothing grows. No I/O.
public struct MQTTOutbox: Sendable {
    /// Topics kept; a new topic past it is refused (a node publishes about twenty).
    public static let maximumTopics = 64
    /// Bytes of one payload; a larger one is refused (the largest object, `WEATHER`, is a few KiB).
    public static let maximumPayload = 64 * 1_024

    /// What the broker should hold, by topic: republished whole after every connection.
    public private(set) var latest: [String: [UInt8]] = [:]
    /// The topics changed since they were last handed out, in the order they first changed.
    public private(set) var pending: [String] = []
    private var pendingSet: Set<String> = []

    public init() {}

    /// Records the newest payload for `topic` (empty: remove the retained message). Returns false, keeping nothing,
    /// when it is past a bound.
    @discardableResult
    public mutating func set(_ topic: String, _ payload: [UInt8]) -> Bool {
        guard payload.count <= Self.maximumPayload, latest[topic] != nil || latest.count < Self.maximumTopics
        else { return false }
        // The same payload again is already sent, or about to be.
        guard latest[topic] != payload else { return true }
        latest[topic] = payload
        if pendingSet.insert(topic).inserted { pending.append(topic) }
        return true
    }

    /// A new connection: every topic is sent again (the broker may have restarted without its retained messages).
    public mutating func reconnected() {
        pending = latest.keys.sorted()
        pendingSet = Set(pending)
    }

    /// The messages to send now, in order; they are no longer pending.
    public mutating func take() -> [(topic: String, payload: [UInt8])] {
        defer {
            pending.removeAll(keepingCapacity: false)
            pendingSet.removeAll(keepingCapacity: false)
        }
        return pending.compactMap { topic in latest[topic].map { (topic, $0) } }
    }

    /// Bytes held in payloads and topic names.
    public var byteCount: Int {
        latest.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
    }
}
