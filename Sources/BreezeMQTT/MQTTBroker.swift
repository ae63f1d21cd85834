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
    /// refused rather than ignored. The user, password and host are percent-decoded; a host in brackets (IPv6) keeps
    /// them.
    public init(url text: String) throws(MQTTError) {
        let notABroker = MQTTError(.badConfiguration, "expected an mqtt:// or mqtts:// URL, found \"\(text)\"")
        guard let colon = text.firstIndex(of: ":"), Self.isScheme(text[..<colon]) else { throw notABroker }
        let scheme = text[..<colon].lowercased()
        guard scheme == "mqtt" || scheme == "mqtts" else { throw notABroker }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw MQTTError(.badConfiguration, "the URL \"\(text)\" names no host") }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterSlashes.endIndex
        let authority = afterSlashes[..<authorityEnd]
        let tail = afterSlashes[authorityEnd...]

        // user[:password]@ up to the last "@"; then host[:port], the host possibly in brackets.
        var user: String?
        var password: String?
        var hostAndPort = authority
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let separator = userInfo.firstIndex(of: ":") {
                user = Self.percentDecoded(userInfo[..<separator])
                password = Self.percentDecoded(userInfo[userInfo.index(after: separator)...])
            } else {
                user = Self.percentDecoded(userInfo)
            }
            hostAndPort = authority[authority.index(after: at)...]
        }
        let hostEnd: Substring.Index
        if hostAndPort.first == "[" {
            guard let bracket = hostAndPort.firstIndex(of: "]") else { throw notABroker }
            hostEnd = hostAndPort.index(after: bracket)
        } else {
            hostEnd = hostAndPort.firstIndex(of: ":") ?? hostAndPort.endIndex
        }
        let host = Self.percentDecoded(hostAndPort[..<hostEnd])
        let portText = hostAndPort[hostEnd...]
        let digits = portText.dropFirst()
        guard portText.isEmpty || portText.first == ":" && digits.allSatisfy({ ("0"..."9").contains($0) }) else {
            throw notABroker
        }
        guard !host.isEmpty else { throw MQTTError(.badConfiguration, "the URL \"\(text)\" names no host") }
        guard tail.isEmpty || tail == "/" else {
            throw MQTTError(.badConfiguration, "an MQTT URL is only a host, a port and a user: \"\(text)\"")
        }
        var port: Int?
        if !digits.isEmpty {
            guard let value = Int(digits), (1...65_535).contains(value) else {
                throw MQTTError(.badConfiguration, "the port \(digits) is not from 1 to 65535")
            }
            port = value
        }
        self.init(
            host: host, port: port, tls: scheme == "mqtts", username: user.flatMap { $0.isEmpty ? nil : $0 },
            password: password)
    }

    /// RFC 3986's scheme: a letter, then letters, digits, "+", "-" or ".".
    private static func isScheme(_ text: Substring) -> Bool {
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = text.unicodeScalars.first, isLetter(first) else { return false }
        return text.unicodeScalars.allSatisfy {
            isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
        }
    }

    /// `%XX` sequences decoded; text with a malformed sequence, or one that decodes to bytes that are not UTF-8, is
    /// kept as it was written.
    private static func percentDecoded(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let high = hexValue(utf8.removeFirst()), let low = hexValue(utf8.removeFirst())
            else { return String(text) }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self) ?? String(text)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The URL without the password, for logs and `breezectl status`.
    public var description: String {
        let user = username.map { "\($0)@" } ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(user)\(shownHost):\(port)"
    }
}
