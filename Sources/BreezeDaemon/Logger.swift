import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Log lines on stderr with journald priority prefixes (`<3>` error … `<7>` debug) and `key=value` fields.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case error = 3
        case warning = 4
        case notice = 5
        case info = 6
        case debug = 7

        public init?(name: String) {
            switch name.lowercased() {
            case "error", "err": self = .error
            case "warning", "warn": self = .warning
            case "notice": self = .notice
            case "info": self = .info
            case "debug": self = .debug
            default: return nil
            }
        }

        public var name: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .notice: "notice"
            case .info: "info"
            case .debug: "debug"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var level: Level

    public init(level: Level = .info) {
        self.level = level
    }

    public func error(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.error, event, fields) }
    public func warning(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.warning, event, fields) }
    public func notice(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.notice, event, fields) }
    public func info(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.info, event, fields) }
    public func debug(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.debug, event, fields) }

    /// Writes `<priority>event key=value …`, quoting values with spaces; one `write` per line.
    public func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, Any>) {
        guard level <= self.level else { return }
        var line = "<\(level.rawValue)>\(event)"
        for (key, value) in fields {
            let text = String(describing: value).replacingOccurrences(of: "\n", with: " ")
            let quoted = text.isEmpty || text.contains(" ") || text.contains("=") || text.contains("\"")
            line += " \(key)=" + (quoted ? "\"\(text.replacingOccurrences(of: "\"", with: "\\\""))\"" : text)
        }
        line += "\n"
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
