import BreezeCore
import BreezeMQTT
import BreezeProtocol

/// The daemon's objects on an MQTT broker, retained, under `<prefix>/<node>/…`, with Home Assistant discovery
/// configs under `<discovery prefix>/…/config`. Every call only sets the link's outbox: none waits for the broker.
final class MQTTPublisher: Sendable {
    let link: MQTTLink
    let node: String
    let base: String
    let settings: MQTTSettings

    init(settings: MQTTSettings, broker: MQTTBroker, onState: @escaping @Sendable (MQTTLink.State) -> Void) {
        self.settings = settings
        node = settings.nodeName
        base = "\(settings.topicPrefix)/\(node)"
        var configuration = MQTTLink.Configuration(broker: broker, clientID: "breezed-\(node)")
        configuration.keepalive = settings.keepalive
        configuration.caFile = settings.caFile
        configuration.availabilityTopic = "\(base)/availability"
        link = MQTTLink(configuration: configuration, onState: onState)
    }

    /// The state topic for `name` (`location`, `air`, `pollen`, `climate`, `weather`, `permission`).
    func topic(_ name: String) -> String { "\(base)/\(name)" }

    func start() {
        publishDiscovery(withData: [])
        link.start()
    }

    func stop() async { await link.stop() }

    func publish(_ name: String, _ message: JSONValue) {
        link.publish(topic(name), Array(message.encoded().utf8))
    }

    func dataset(_ dataset: Dataset, _ message: JSONValue) {
        publish(dataset.rawValue, message)
        // Sensors that wait for data (the weather's) appear once there is data to show.
        if Self.sensorsWaitForData(dataset), ["fresh", "stale"].contains(message["state"]?.stringValue) {
            publishDiscovery(withData: [dataset])
        }
    }

    /// What `breezectl status` shows of the link, as the `mqtt` member of `VERSION`.
    func statusObject(_ state: MQTTLink.State) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("state", .string(state.name)), ("broker", .string(link.configuration.broker.description)),
            ("node", .string(node)),
        ]
        if let reason = state.reason { members.append(("reason", .string(reason))) }
        return .object(members)
    }

    // MARK: Home Assistant discovery

    /// One discovery config: the component, its object id, and its members beyond the shared ones.
    struct Entity {
        var component: String
        var id: String
        var members: [(String, JSONValue)]
    }

    var deviceID: String {
        "breeze_\(node.map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) })"
    }

    func configTopic(_ entity: Entity) -> String {
        "\(settings.discoveryPrefix)/\(entity.component)/\(deviceID)/\(entity.id)/config"
    }

    /// The configs, or empty payloads that remove them when discovery is switched off: those announced at start,
    /// and the sensors of `withData`, which wait for data.
    func publishDiscovery(withData: [Dataset]) {
        let entities = Self.entities(topic: topic) + withData.flatMap { Self.sensorEntities($0, topic: topic) }
        for entity in entities {
            link.publish(configTopic(entity), settings.discovery ? Array(config(entity).encoded().utf8) : [])
        }
        if !settings.discovery {
            for dataset in Dataset.allCases where Self.sensorsWaitForData(dataset) {
                for entity in Self.sensorEntities(dataset, topic: topic) { link.publish(configTopic(entity), []) }
            }
        }
    }

    func config(_ entity: Entity) -> JSONValue {
        let device = JSONValue.object([
            ("identifiers", .array([.string(deviceID)])), ("name", .string("Breeze \(node)")),
            ("model", .string("breezed")), ("manufacturer", .string("Breeze")),
            ("sw_version", .string(Release.version)),
        ])
        return .object(
            [
                ("unique_id", .string("\(deviceID)_\(entity.id)")),
                // The entity id Home Assistant gives it (2025.10 on; `object_id` before, removed in 2026.4).
                ("default_entity_id", .string("\(entity.component).\(deviceID)_\(entity.id)")),
            ]
                + entity.members + [
                    ("availability_topic", .string(topic("availability"))),
                    ("payload_available", .string("online")), ("payload_not_available", .string("offline")),
                    ("device", device),
                ])
    }

    /// The entities announced at start: the location's, then each dataset's sensors that do not wait for data.
    static func entities(topic: (String) -> String) -> [Entity] {
        [
            Entity(
                component: "device_tracker", id: "location",
                members: [
                    ("name", .string("Location")), ("json_attributes_topic", .string(topic("location"))),
                    (
                        "json_attributes_template",
                        .string(
                            "{{ {'latitude': value_json.latitude, 'longitude': value_json.longitude,"
                                + " 'gps_accuracy': value_json.accuracy or 1000, 'place': value_json.name,"
                                + " 'source': value_json.source} | tojson }}")
                    ),
                    ("source_type", .string("gps")),
                ]),
            Entity(
                component: "sensor", id: "place",
                members: [
                    ("name", .string("Place")), ("state_topic", .string(topic("location"))),
                    ("value_template", .string("{{ value_json.name }}")), ("icon", .string("mdi:map-marker")),
                ]),
        ] + Dataset.allCases.filter { !sensorsWaitForData($0) }.flatMap { sensorEntities($0, topic: topic) }
    }

    /// A dataset's sensors (`DatasetMessageBody.sensors`), reading its topic.
    static func sensorEntities(_ dataset: Dataset, topic: (String) -> String) -> [Entity] {
        guard let body = dataset.reportType as? any DatasetMessageBody.Type else { return [] }
        return body.sensors.map { sensor in
            Entity(
                component: sensor.component, id: sensor.id,
                members: [
                    ("name", .string(sensor.name)), ("state_topic", .string(topic(dataset.rawValue))),
                ] + sensor.members)
        }
    }

    static func sensorsWaitForData(_ dataset: Dataset) -> Bool {
        (dataset.reportType as? any DatasetMessageBody.Type)?.sensorsWaitForData ?? false
    }
}
