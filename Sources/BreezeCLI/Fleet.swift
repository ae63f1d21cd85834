import BreezeCore
import BreezeMQTT
import BreezeProtocol
import Glibc

/// `breezectl fleet --mqtt URL`: every breezed publishing to a broker, from its retained topics: each node's place,
/// the age of its fix, its AQI and whether it is online; `--watch` follows the changes.
struct Fleet {
    /// What one node has published.
    struct Node: Equatable {
        var name: String
        var availability: String?
        var location: JSONValue?
        var air: JSONValue?
    }

    /// Nodes listed at most (a broker can hold any number of topics; the table stays readable, memory bounded).
    static let maximumNodes = 4_096
    static let prefix = "breeze"

    var broker: MQTTBroker
    var caFile: String?
    var json: Bool
    var watch: Bool
    var timeout: Double
    var output: TextOutput
    var now: () -> Double = { SystemServiceClock().wallTime }

    func run() throws(CLIError) {
        signal(SIGPIPE, SIG_IGN)
        var nodes: [String: Node] = [:]
        var listed = false
        let marker = "breeze-fleet/\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var changed: [String] = []
        do throws(MQTTError) {
            let session = try MQTTSession(clientID: "breezectl-fleet-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            if let username = broker.username {
                try session.setCredentials(username: username, password: broker.password)
            }
            if broker.tls { try session.setTLS(caFile: caFile) }
            session.onMessage = { message in
                if message.topic == marker {
                    listed = true
                    return
                }
                // Nothing breezed publishes is larger than its outbox's payload bound: a larger message is not
                // one of its objects, and is not kept.
                guard message.payload.count <= MQTTOutbox.maximumPayload, let (node, name) = Self.split(message.topic),
                    nodes[node] != nil || nodes.count < Self.maximumNodes
                else { return }
                var entry = nodes[node] ?? Node(name: node)
                let text = String(decoding: message.payload, as: UTF8.self)
                switch name {
                case "availability": entry.availability = text.isEmpty ? nil : text
                case "location": entry.location = try? JSONValue.parse(text)
                case "air": entry.air = try? JSONValue.parse(text)
                default: return
                }
                if nodes[node] != entry {
                    nodes[node] = entry
                    changed.append(node)
                }
            }
            try session.connect(host: broker.host, port: broker.port, keepalive: 30)
            let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
            var subscribed = false
            while !listed {
                guard ContinuousClock.now < deadline else {
                    throw MQTTError(.unreachable, "no answer from \(broker) within \(printfFormat("%g", timeout)) s")
                }
                _ = try session.service(wakeFD: -1, timeout: 0.1)
                if !subscribed, session.connack == 0 {
                    subscribed = true
                    for name in ["availability", "location", "air"] {
                        try session.subscribe("\(Self.prefix)/+/\(name)")
                    }
                    // The broker sends the retained messages of a subscription before anything published after
                    // it: this message, to ourselves, marks the end of the list.
                    try session.subscribe(marker)
                    try session.publish(topic: marker, payload: [], qos: 0, retain: false)
                }
            }
            changed.removeAll()
            output.write(render(nodes.values.sorted { $0.name < $1.name }, header: true))
            guard watch else {
                session.disconnect()
                return
            }
            // A node is printed again when what its row shows changed, not for each message it publishes (a
            // parked node's coarse time moves each minute, its row does not).
            var shown = Dictionary(uniqueKeysWithValues: nodes.values.map { ($0.name, render([$0], header: false)) })
            while true {
                _ = try session.service(wakeFD: -1, timeout: 1)
                guard !changed.isEmpty else { continue }
                let nodesChanged = Set(changed).sorted().compactMap { nodes[$0] }
                changed.removeAll()
                for node in nodesChanged {
                    let row = render([node], header: false)
                    guard shown[node.name] != row else { continue }
                    shown[node.name] = row
                    output.write(row)
                }
            }
        } catch {
            throw CLIError(.unreachable, "the MQTT broker \(broker): \(error.message)")
        }
    }

    /// `breeze/<node>/<name>` → (node, name).
    static func split(_ topic: String) -> (String, String)? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Substring(prefix), !parts[1].isEmpty else { return nil }
        return (String(parts[1]), String(parts[2]))
    }

    /// Seconds since the node's fix; nil without one (a selected or fallback city has none).
    func fixAge(_ node: Node) -> Double? {
        guard let text = node.location?["time"]?.stringValue, let time = Timestamp.seconds(iso8601: text) else {
            return nil
        }
        return max(0, now() - time)
    }

    /// Whether the node's time is exact: unless it publishes precise positions (`precise` true), its time is
    /// rounded down to the minute with its position, and its age is known to the minute only.
    static func isPrecise(_ node: Node) -> Bool {
        node.location?["precise"]?.boolValue == true
    }

    /// The fix's age at the precision it has: "12 s" for an exact time; "< 1 min", "3 min" for one rounded down to
    /// the minute (a time 49 s old on the wire may be up to 109 s old).
    func ageText(_ node: Node) -> String? {
        guard let seconds = fixAge(node) else { return nil }
        if Self.isPrecise(node) || seconds >= 5_400 { return Self.age(seconds) }
        return seconds < CoarseLocation.timeStep
            ? "< 1 min" : "\(TerminalText.whole((seconds / 60).rounded(.down))) min"
    }

    func object(_ node: Node) -> JSONValue {
        let location = node.location
        return .object([
            ("class", .string("NODE")), ("node", .string(node.name)),
            ("availability", node.availability.map(JSONValue.string) ?? .null),
            ("place", location?["name"] ?? .null),
            ("latitude", location?["latitude"] ?? .null), ("longitude", location?["longitude"] ?? .null),
            ("source", location?["source"] ?? .null), ("fix_time", location?["time"] ?? .null),
            ("fix_age_s", fixAge(node).map { .number($0.rounded()) } ?? .null),
            ("us_aqi", node.air?["us_aqi"] ?? .null),
        ])
    }

    func render(_ nodes: [Node], header: Bool) -> String {
        if json { return nodes.map { object($0).encoded() + "\n" }.joined() }
        if header && nodes.isEmpty { return "No breezed publishes to this broker.\n" }
        var text = header ? Self.row(["NODE", "AVAILABILITY", "PLACE", "FIX AGE", "AQI"]) : ""
        for node in nodes {
            let place = node.location?["name"]?.displayText ?? "—"
            let age = ageText(node) ?? "—"
            let aqi = node.air?["us_aqi"]?.numberValue.map { TerminalText.whole($0) } ?? "—"
            text += Self.row([
                TerminalText.escaped(node.name), node.availability.map(TerminalText.escaped) ?? "unknown", place, age,
                aqi,
            ])
        }
        return text
    }

    static func row(_ columns: [String]) -> String {
        let widths = [16, 13, 32, 9]
        var line = ""
        for (index, column) in columns.enumerated() {
            line += index < widths.count ? column.padded(toLength: widths[index]) + " " : column
        }
        return line.trimmingSpaces() + "\n"
    }

    /// An age as people say it. The seconds come from a time another machine published: printed through
    /// `TerminalText.whole`, which never traps, whatever the value.
    static func age(_ seconds: Double) -> String {
        switch seconds {
        case ..<90: "\(TerminalText.whole(seconds)) s"
        case ..<5_400: "\(TerminalText.whole(seconds / 60)) min"
        case ..<172_800: "\(TerminalText.whole(seconds / 3_600)) h"
        default: "\(TerminalText.whole(seconds / 86_400)) d"
        }
    }
}
