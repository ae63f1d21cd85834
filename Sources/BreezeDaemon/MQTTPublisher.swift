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
        publishDiscovery(weather: false)
        link.start()
    }

    func stop() async { await link.stop() }

    func publish(_ name: String, _ message: JSONValue) {
        link.publish(topic(name), Array(message.encoded().utf8))
    }

    func dataset(_ dataset: Dataset, _ message: JSONValue) {
        publish(dataset.rawValue, message)
        // The weather's sensors appear once there is weather to show.
        if dataset == .weather, ["fresh", "stale"].contains(message["state"]?.stringValue) {
            publishDiscovery(weather: true)
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

    var deviceID: String { "breeze_\(node.map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) })" }

    func configTopic(_ entity: Entity) -> String {
        "\(settings.discoveryPrefix)/\(entity.component)/\(deviceID)/\(entity.id)/config"
    }

    /// The configs, or empty payloads that remove them when discovery is switched off.
    func publishDiscovery(weather: Bool) {
        let entities = Self.entities(topic: topic) + (weather ? Self.weatherEntities(topic: topic) : [])
        for entity in entities {
            link.publish(configTopic(entity), settings.discovery ? Array(config(entity).encoded().utf8) : [])
        }
        if !settings.discovery {
            for entity in Self.weatherEntities(topic: topic) { link.publish(configTopic(entity), []) }
        }
    }

    func config(_ entity: Entity) -> JSONValue {
        let device = JSONValue.object([
            ("identifiers", .array([.string(deviceID)])), ("name", .string("Breeze \(node)")),
            ("model", .string("breezed")), ("manufacturer", .string("Breeze")),
            ("sw_version", .string(Daemon.release)),
        ])
        return .object(
            [("unique_id", .string("\(deviceID)_\(entity.id)")), ("object_id", .string("\(deviceID)_\(entity.id)"))]
                + entity.members + [
                    ("availability_topic", .string(topic("availability"))),
                    ("payload_available", .string("online")), ("payload_not_available", .string("offline")),
                    ("device", device),
                ])
    }

    static func entities(topic: (String) -> String) -> [Entity] {
        /// A pollutant's sensor. Breeze publishes µg/m³; Home Assistant's carbon monoxide class takes ppm only, so
        /// CO is converted in its template (ppm = µg/m³ × 24.45 / 28,010: molar volume at 25 °C and 1 atm over CO's
        /// molar mass).
        func pollutant(_ id: String, _ name: String, _ code: String, _ deviceClass: String, ppmFactor: String? = nil)
            -> Entity {
            let value = "(value_json.pollutants | selectattr('code', 'eq', '\(code)') | map(attribute='value') | list"
                + " + [none]) | first"
            let template = ppmFactor.map { factor in
                "{% set v = \(value) %}{{ (v * \(factor)) | round(4) if v is number else none }}"
            } ?? "{{ \(value) }}"
            return Entity(component: "sensor", id: id, members: [
                ("name", .string(name)), ("state_topic", .string(topic("air"))),
                ("value_template", .string(template)),
                ("device_class", .string(deviceClass)),
                ("unit_of_measurement", .string(ppmFactor == nil ? "µg/m³" : "ppm")),
                ("state_class", .string("measurement")),
            ])
        }
        return [
            Entity(component: "device_tracker", id: "location", members: [
                ("name", .string("Location")), ("json_attributes_topic", .string(topic("location"))),
                ("json_attributes_template", .string(
                    "{{ {'latitude': value_json.latitude, 'longitude': value_json.longitude,"
                        + " 'gps_accuracy': value_json.accuracy or 1000, 'place': value_json.name,"
                        + " 'source': value_json.source} | tojson }}")),
                ("source_type", .string("gps")),
            ]),
            Entity(component: "sensor", id: "place", members: [
                ("name", .string("Place")), ("state_topic", .string(topic("location"))),
                ("value_template", .string("{{ value_json.name }}")), ("icon", .string("mdi:map-marker")),
            ]),
            Entity(component: "sensor", id: "us_aqi", members: [
                ("name", .string("US AQI")), ("state_topic", .string(topic("air"))),
                ("value_template", .string("{{ value_json.us_aqi }}")), ("device_class", .string("aqi")),
                ("state_class", .string("measurement")),
            ]),
            pollutant("pm2_5", "PM2.5", "pm2_5", "pm25"),
            pollutant("pm10", "PM10", "pm10", "pm10"),
            pollutant("no2", "NO₂", "nitrogen_dioxide", "nitrogen_dioxide"),
            pollutant("o3", "O₃", "ozone", "ozone"),
            pollutant("so2", "SO₂", "sulphur_dioxide", "sulphur_dioxide"),
            pollutant("co", "CO", "carbon_monoxide", "carbon_monoxide", ppmFactor: "24.45 / 28010"),
            Entity(component: "sensor", id: "pollen", members: [
                ("name", .string("Highest pollen level")), ("state_topic", .string(topic("pollen"))),
                ("value_template", .string("{{ value_json.highest }}")), ("icon", .string("mdi:flower-pollen")),
                ("state_class", .string("measurement")),
            ]),
        ]
    }

    static func weatherEntities(topic: (String) -> String) -> [Entity] {
        [
            Entity(component: "sensor", id: "temperature", members: [
                ("name", .string("Temperature")), ("state_topic", .string(topic("weather"))),
                ("value_template", .string("{{ value_json.temperature_c }}")),
                ("device_class", .string("temperature")), ("unit_of_measurement", .string("°C")),
                ("state_class", .string("measurement")),
            ]),
            Entity(component: "sensor", id: "condition", members: [
                ("name", .string("Condition")), ("state_topic", .string(topic("weather"))),
                ("value_template", .string("{{ value_json.condition }}")), ("icon", .string("mdi:weather-partly-cloudy")),
            ]),
        ]
    }
}
