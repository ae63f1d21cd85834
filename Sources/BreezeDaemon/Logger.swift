import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines on stderr, `event key=value …`: with journald's priority prefixes (`<3>` error … `<7>` debug) when
/// stderr is the journal, and as `12:01:02 notice: event key=value …` for people otherwise (a terminal, a file).
public struct Logger: Sendable {
    /// How a line shows its level.
    public enum Style: Sendable {
        /// `<5>event …`: journald reads the prefix as the entry's priority (and stamps the time itself).
        case journal
        /// `12:01:02 notice: event …`: the local time and the level's name.
        case people

        /// `journal` when stderr is the stream systemd connected to the journal: `JOURNAL_STREAM` names its
        /// device and inode, and stderr is that file (not one it was redirected to since).
        public static var standardError: Style {
            guard let stream = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return .people }
            let parts = stream.split(separator: ":")
            var status = stat()
            guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &status) == 0
            else { return .people }
            return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode ? .journal : .people
        }
    }

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

    /// The longest field value written, in Unicode scalars.
    public static let maximumFieldLength = 512

    public var level: Level
    public var style: Style

    public init(level: Level = .info, style: Style = .standardError) {
        self.level = level
        self.style = style
    }

    public func error(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.error, event, fields) }
    public func warning(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.warning, event, fields) }
    public func notice(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.notice, event, fields) }
    public func info(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.info, event, fields) }
    public func debug(_ event: String, _ fields: KeyValuePairs<String, Any> = [:]) { log(.debug, event, fields) }

    /// Writes `Logger.line(…)` for this call; one `write` per line.
    public func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, Any>) {
        guard level <= self.level else { return }
        let line = Self.line(level, event, fields)
        let bytes = Array((style == .journal ? line : Self.forPeople(line, level)).utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// `<priority>event key=value …` and a newline: always exactly one line, whatever the fields hold, because
    /// journald starts a new entry (with any `<N>` prefix it finds) at each newline. Control characters are shown
    /// as escapes (`\n`, `\x1b`), a value longer than `maximumFieldLength` is cut, and values with spaces, `=` or
    /// quotes are quoted.
    public static func line(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, Any>) -> String {
        var line = "<\(level.rawValue)>" + escaped(event)
        for (key, value) in fields {
            let text = escaped(String(describing: value))
            let quoted = text.isEmpty || text.contains(" ") || text.contains("=") || text.contains("\"")
            line += " \(escaped(key))=" + (quoted ? "\"\(text.replacing("\"", with: "\\\""))\"" : text)
        }
        return line + "\n"
    }

    /// A journal line as people read it: the priority prefix replaced by the local time and the level's name.
    static func forPeople(_ line: String, _ level: Level, at seconds: time_t = time(nil)) -> String {
        var now = seconds
        var local = tm()
        localtime_r(&now, &local)
        let clock = [local.tm_hour, local.tm_min, local.tm_sec].map { $0 < 10 ? "0\($0)" : "\($0)" }
        return clock.joined(separator: ":") + " \(level.name): " + line.dropFirst("<\(level.rawValue)>".count)
    }

    /// `text` cut to `maximumFieldLength` scalars, with C0 and C1 controls, DEL, the Unicode line and paragraph
    /// separators and backslashes escaped, so that what came from outside can neither end the line nor drive the
    /// terminal that shows the log.
    static func escaped(_ text: String) -> String {
        var output = ""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == maximumFieldLength {
                output += "…"
                break
            }
            switch scalar {
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\\": output += "\\\\"
            case "\u{2028}", "\u{2029}": output += "\\u\(String(scalar.value, radix: 16))"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                output += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
