/// Where gpsd listens: a host and a TCP port (gpsd's default is 127.0.0.1:2947).
public struct GPSDAddress: Hashable, Sendable, CustomStringConvertible {
    public static let defaultPort = 2947

    public var host: String
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int = GPSDAddress.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Parses "HOST:PORT", "HOST", ":PORT" or "[IPv6]:PORT"; nil when the port is not a port.
    public init?(_ text: String) {
        var host = text
        var port = GPSDAddress.defaultPort
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") {
                guard let value = Int(rest.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
            } else if !rest.isEmpty {
                return nil
            }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            guard let value = Int(text[text.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            port = value
        }
        self.host = host.isEmpty ? "127.0.0.1" : host
        self.port = port
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
