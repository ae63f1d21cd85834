public import BreezeMQTT
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `[mqtt]` in breezed.conf, `--mqtt` and `--mqtt-node`: where to publish, under which names, and how precisely.
public struct MQTTSettings: Sendable, Equatable {
    /// nil: no MQTT at all.
    public var broker: MQTTBroker?
    /// The node's name in topics; nil: the host name.
    public var node: String?
    public var topicPrefix = "breeze"
    public var discoveryPrefix = "homeassistant"
    /// Home Assistant discovery configs published; false removes them from the broker.
    public var discovery = true
    /// A file holding the password of the URL's user (instead of writing it in the URL).
    public var passwordFile: String?
    /// The CA file `mqtts://` brokers are verified against; nil: the system's authorities.
    public var caFile: String?
    public var keepalive = 60
    /// Exact coordinates; false (the default) rounds them, and every field derived from them, to about 1 km.
    public var precise = false

    public init() {}

    static let keys = [
        "url", "node", "topic_prefix", "discovery_prefix", "discovery", "password_file", "ca_file", "keepalive",
        "precise",
    ]

    /// The node's name as set, else the host name, made fit for a topic level (letters, digits, `-`, `_`, `.`).
    public var nodeName: String {
        if let node { return node }
        var buffer = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let name = String(host.unicodeScalars.map { Self.isNameScalar($0) ? Character($0) : "_" }.prefix(64))
        return name.isEmpty ? "breeze" : name
    }

    static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
    }

    /// A node name or topic prefix: 1 to 64 letters, digits, `-`, `_`, `.` (no `/`, `+`, `#` in a topic level).
    static func name(_ value: String, what: String) throws(DaemonConfiguration.ValueError) -> String {
        guard (1...64).contains(value.unicodeScalars.count), value.unicodeScalars.allSatisfy(isNameScalar) else {
            throw DaemonConfiguration.ValueError(
                "expected a \(what) of 1 to 64 letters, digits, '-', '_' or '.', found \"\(value)\"")
        }
        return value
    }

    mutating func set(key: String, _ value: String) throws(DaemonConfiguration.ValueError) {
        switch key {
        case "url":
            if value.isEmpty {
                broker = nil
                return
            }
            do throws(MQTTError) {
                broker = try MQTTBroker(url: value)
            } catch {
                throw DaemonConfiguration.ValueError(error.message)
            }
        case "node": node = value.isEmpty ? nil : try Self.name(value, what: "node name")
        case "topic_prefix": topicPrefix = try Self.name(value, what: "topic prefix")
        case "discovery_prefix": discoveryPrefix = try Self.name(value, what: "discovery prefix")
        case "discovery": discovery = try DaemonConfiguration.bool(value)
        case "password_file": passwordFile = value.isEmpty ? nil : try DaemonConfiguration.path(value)
        case "ca_file": caFile = value.isEmpty ? nil : try DaemonConfiguration.path(value)
        case "keepalive": keepalive = Int(try DaemonConfiguration.duration(value, in: 5...3_600).rounded())
        case "precise": precise = try DaemonConfiguration.bool(value)
        default:
            throw DaemonConfiguration.ValueError("unknown setting: known keys are \(Self.keys.joined(separator: ", "))")
        }
    }

    /// The broker with the password file's first line as the password, when one is set.
    func brokerWithPassword() throws(StartError) -> MQTTBroker? {
        guard let broker else { return nil }
        guard let passwordFile else { return broker }
        do throws(MQTTError) {
            return try broker.withPassword(fromFile: passwordFile)
        } catch {
            throw StartError("[mqtt] password_file: \(error.message)")
        }
    }
}
