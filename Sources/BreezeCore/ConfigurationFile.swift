/// An INI file in the style of `geoclue.conf`: `[section]` headers, `key=value` lines, `#` or `;` comments, on a line
/// of their own or after a value (after a space or a tab).
public struct ConfigurationFile: Sendable {
    public struct Entry: Sendable {
        public var value: String
        public var line: Int
    }

    /// The largest configuration file read.
    public static let maximumSize = 1 << 20
    /// Where breezed's configuration is unless `--config` says otherwise; `breezectl fleet` reads its `[mqtt]`.
    public static let breezedDefaultPath = "/etc/breezed/breezed.conf"

    public let name: String
    /// Section → key → entry; keys before any section fall in "".
    public private(set) var sections: [String: [String: Entry]] = [:]

    /// Parses `text`; a line that is neither a section, a `key=value` nor a comment is an error naming it, and so
    /// is a control character (a NUL would cut a path short). Lines end in LF or CR LF (files edited on Windows),
    /// and a UTF-8 byte order mark at the start is skipped. Total: any text gives a file or a `ConfigurationError`.
    public init(text: String, name: String) throws(ConfigurationError) {
        self.name = name
        var section = ""
        var body = Substring(text)
        if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
        // "\r\n" is one Character in Swift, so lines are split on Unicode scalars.
        let lines = body.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, scalars) in lines.enumerated() {
            let number = offset + 1
            var raw = String.UnicodeScalarView(scalars)
            if raw.last == "\r" { raw.removeLast() }
            if let control = raw.first(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
                throw ConfigurationError(
                    file: name, line: number,
                    "a control character (U+\(printfFormat("%04X", control.value))) in the line")
            }
            let line = String(raw).trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ConfigurationError(file: name, line: number, "a section header is [name]: \(line)")
                }
                section = String(line.dropFirst().dropLast()).trimmingSpaces().lowercased()
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError(file: name, line: number, "expected key=value, found \"\(line)\"")
            }
            let key = line[..<equals].trimmingSpaces().lowercased()
            let value = Self.withoutComment(line[line.index(after: equals)...]).trimmingSpaces()
            guard !key.isEmpty else {
                throw ConfigurationError(file: name, line: number, "a key is missing before '='")
            }
            if let earlier = sections[section]?[key] {
                throw ConfigurationError(file: name, line: number, "\(key) is already set on line \(earlier.line)")
            }
            sections[section, default: [:]][key] = Entry(value: value, line: number)
        }
    }
}

extension ConfigurationFile {
    /// `value` up to an inline comment: a `#` or `;` after a space or a tab (`url = mqtt://broker  # the broker`).
    /// One that follows anything else is part of the value (`key=abc#1`, a URL's `#fragment`).
    static func withoutComment(_ value: Substring) -> Substring {
        var previous: Character = "="
        for index in value.indices {
            let character = value[index]
            if character == "#" || character == ";", previous == " " || previous == "\t" {
                return value[..<index]
            }
            previous = character
        }
        return value
    }
}

/// A configuration that cannot be used: which file, which line, and what is wrong.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}
