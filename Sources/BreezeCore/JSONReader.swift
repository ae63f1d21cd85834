/// The one JSON reader: strict RFC 8259 over UTF-8 bytes, bounded in depth. The socket protocol, gpsd's reports,
/// breezectl, the web answers, the state file and the cache read their JSON through it (the last three decoded into
/// their types by `JSONValue.decode`).
///
/// Strict means a text is a value only when all of it is: no hex or `+` numbers, no leading zeros, no NaN, no
/// control characters or invalid UTF-8 in strings, no lone surrogate escapes, nothing after the value but spaces.
/// (libgps's own parser reads `0x2E` as 0 and `-33.86abc` as -33.86.)
public struct JSONReader {
    /// What a key given twice in one object means.
    public enum RepeatedKeys: Sendable {
        /// The key keeps its first place and takes the last value (the socket protocol).
        case lastWins
        /// The text is refused: two readers of the same line could otherwise disagree on its value (gpsd's
        /// reports).
        case refused
    }

    /// Nesting deeper than this is refused rather than recursed into.
    public static let maximumDepth = 64
    /// Up to this many members an object's keys are compared in turn to find a repeat; past it, looked up, so that a
    /// line of thousands of keys costs time in proportion to them, not to their square.
    static let membersComparedInTurn = 32

    /// Reads one JSON text: a value, with spaces, tabs, carriage returns and newlines allowed around it.
    /// - Throws: `JSONSyntaxError` saying what is wrong and at which byte.
    public static func value(
        of bytes: some Collection<UInt8>, repeatedKeys: RepeatedKeys = .lastWins
    ) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes: Array(bytes), repeatedKeys: repeatedKeys)
        let value = try reader.value()
        reader.skipSpace()
        guard reader.position == reader.bytes.count else { throw reader.failure("text after the JSON value") }
        return value
    }

    private let bytes: [UInt8]
    private let repeatedKeys: RepeatedKeys
    private var position = 0
    private var depth = 0

    private init(bytes: [UInt8], repeatedKeys: RepeatedKeys) {
        self.bytes = bytes
        self.repeatedKeys = repeatedKeys
    }

    private func failure(_ what: String) -> JSONSyntaxError {
        JSONSyntaxError(what, at: position)
    }

    private var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipSpace() {
        while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        guard let byte = next else { throw failure("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let count = word.utf8.count
        guard bytes.count - position >= count, bytes[position..<position + count].elementsEqual(word.utf8) else {
            throw failure("unknown word")
        }
        position += count
        return value
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("nested more than \(Self.maximumDepth) deep") }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [(String, JSONValue)] = []
        // Where each key is, once there are too many to compare in turn.
        var positions: [String: Int] = [:]
        skipSpace()
        if next == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard next == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipSpace()
            guard next == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            let value = try value()
            let existing =
                members.count <= Self.membersComparedInTurn ? members.firstIndex { $0.0 == key } : positions[key]
            if let existing {
                guard repeatedKeys == .lastWins else { throw failure("a key given twice") }
                members[existing].1 = value
            } else {
                members.append((key, value))
                if members.count == Self.membersComparedInTurn + 1 {
                    for (index, member) in members.enumerated() { positions[member.0] = index }
                } else if members.count > Self.membersComparedInTurn {
                    positions[key] = members.count - 1
                }
            }
            skipSpace()
            switch next {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var values: [JSONValue] = []
        skipSpace()
        if next == UInt8(ascii: "]") {
            position += 1
            return .array(values)
        }
        while true {
            values.append(try value())
            skipSpace()
            switch next {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(values)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        func digits() -> Int {
            let first = position
            while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
            return position - first
        }
        if next == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("expected digits") }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") { throw failure("leading zero") }
        if next == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw failure("expected digits after '.'") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            position += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw failure("expected digits in the exponent") }
        }
        // The grammar above let through only ASCII.
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw failure("number out of range") }
        return .number(value)
    }

    /// A string, its opening quote next: escapes read, control characters and invalid UTF-8 refused.
    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1
        var result = ""
        // The bytes since the last escape, appended as text (whole, not a scalar at a time) when the next escape or
        // the closing quote comes.
        var run = position
        func appendRun() throws(JSONSyntaxError) {
            guard run < position else { return }
            let piece = bytes[run..<position]
            // ASCII is valid UTF-8 as it is; anything else is validated.
            if piece.allSatisfy({ $0 < 0x80 }) {
                result += String(decoding: piece, as: UTF8.self)
            } else if let text = String(validating: piece, as: UTF8.self) {
                result += text
            } else {
                throw JSONSyntaxError("invalid UTF-8 in a string", at: run)
            }
        }
        while let byte = next {
            switch byte {
            case UInt8(ascii: "\""):
                try appendRun()
                position += 1
                return result
            case UInt8(ascii: "\\"):
                try appendRun()
                position += 1
                result.unicodeScalars.append(try escape())
                run = position
            case 0..<0x20:
                throw failure("control character in a string")
            default:
                position += 1
            }
        }
        throw failure("unterminated string")
    }

    /// The character an escape stands for, its backslash read.
    private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard let letter = next else { throw failure("unterminated string") }
        position += 1
        switch letter {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): break
        default: throw failure("invalid escape")
        }
        var code = try hex4()
        if (0xD800...0xDBFF).contains(code) {
            // A surrogate pair: the low half must follow.
            guard next == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u")
            else { throw failure("lone surrogate") }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("bad surrogate pair") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
        return scalar
    }

    /// Exactly four hex digits. (`UInt32(_:radix:)` would also take a sign: `\u+041` is not JSON.)
    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("invalid \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }
}

/// Why a text is not JSON: what is wrong, and at which byte.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var problem: String
    public var offset: Int

    init(_ problem: String, at offset: Int) {
        self.problem = problem
        self.offset = offset
    }

    public var description: String { "not valid JSON: \(problem) at byte \(offset)" }
}
