public import BreezeCore

/// One Home Assistant entity that reads a dataset's object on its MQTT topic (`<prefix>/<node>/<dataset>`): the
/// discovery config the daemon publishes for it, beyond the members every config shares.
public struct DatasetSensor: Sendable {
    /// The Home Assistant component: `sensor`.
    public var component: String
    /// The object id, unique on the device: `us_aqi`, `temperature`.
    public var id: String
    /// The name Home Assistant shows.
    public var name: String
    /// The members after `name` and `state_topic` (the dataset's topic), in the order they are sent:
    /// `value_template`, `device_class`, `unit_of_measurement`, `state_class`, `icon`.
    public var members: [(String, JSONValue)]

    public init(component: String = "sensor", id: String, name: String, members: [(String, JSONValue)]) {
        self.component = component
        self.id = id
        self.name = name
        self.members = members
    }
}
