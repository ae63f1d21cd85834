import FoundationEssentials

/// Where a broker is: `mqtt://[user[:password]@]host[:port]` or `mqtts://…` (TLS, port 8883 by default).
public struct MQTTBroker: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool
    public var username: String?
    public var password: String?

    public init(host: String, port: Int? = nil, tls: Bool = false, username: String? = nil, password: String? = nil) {
        self.host = host
        self.tls = tls
        self.port = port ?? (tls ? 8883 : 1883)
        self.username = username
        self.password = password
    }

    /// Parses a broker URL; throws a message naming what is wrong. A path other than `/`, a query or a fragment are
    /// refused rather than ignored.
    public init(url text: String) throws(MQTTError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            ["mqtt", "mqtts"].contains(scheme)
        else { throw MQTTError(.badConfiguration, "expected an mqtt:// or mqtts:// URL, found \"\(text)\"") }
        guard let host = components.host, !host.isEmpty else {
            throw MQTTError(.badConfiguration, "the URL \"\(text)\" names no host")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil
        else { throw MQTTError(.badConfiguration, "an MQTT URL is only a host, a port and a user: \"\(text)\"") }
        if let port = components.port, !(1...65_535).contains(port) {
            throw MQTTError(.badConfiguration, "the port \(port) is not from 1 to 65535")
        }
        self.init(
            host: host, port: components.port, tls: scheme == "mqtts",
            username: components.user.flatMap { $0.isEmpty ? nil : $0 }, password: components.password)
    }

    /// The URL without the password, for logs and `breezectl status`.
    public var description: String {
        let user = username.map { "\($0)@" } ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(user)\(shownHost):\(port)"
    }
}
