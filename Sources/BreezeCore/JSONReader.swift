import BreezeCore

/// A strict recursive-descent JSON parser over UTF-8 bytes, bounded in depth.
struct JSONParser {
    static let maximumDepth = 64
    /// Up to this many members an object's keys are compared in turn to find a repeat; past it, looked up.
    static let membersComparedInTurn = 32

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(ProtocolError) -> JSONValue {
        let value = try parseValue()
        skipSpace()
        guard position == bytes.count else { throw failure("text after the JSON value") }
        return value
    }

    private func failure(_ what: String) -> ProtocolError {
        ProtocolError(.malformedJSON, "not valid JSON: \(what) at byte \(position)")
    }

    private mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(ProtocolError) -> JSONValue {
        skipSpace()
        guard position < bytes.count else { throw failure("unexpected end") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(ProtocolError) -> JSONValue {
        let count = word.utf8.count
        guard bytes.count - position >= count, bytes[position..<position + count].elementsEqual(word.utf8) else {
            throw failure("unknown word")
        }
        position += count
        return value
    }

    private mutating func enter() throws(ProtocolError) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("nested more than \(Self.maximumDepth) deep") }
    }

    private mutating func parseObject() throws(ProtocolError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [(String, JSONValue)] = []
        // Requests have a few members: room for them at once, not grown from one.
        members.reserveCapacity(4)
        // Where each key is, once there are too many to compare in turn: a line of thousands of keys then costs
        // time in proportion to them, not to their square (64 KiB of keys held the socket thread a quarter second).
        var positions: [String: Int] = [:]
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try parseString()
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            let value = try parseValue()
            let existing =
                members.count <= Self.membersComparedInTurn
                ? members.firstIndex { $0.0 == key } : positions[key]
            if let existing {
                members[existing].1 = value  // the last of duplicate keys wins
            } else {
                members.append((key, value))
                if members.count == Self.membersComparedInTurn + 1 {
                    for (index, member) in members.enumerated() { positions[member.0] = index }
                } else if members.count > Self.membersComparedInTurn {
                    positions[key] = members.count - 1
                }
            }
            skipSpace()
            guard position < bytes.count else { throw failure("unexpected end") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            throw failure("expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(ProtocolError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var values: [JSONValue] = []
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(values)
        }
        while true {
            values.append(try parseValue())
            skipSpace()
            guard position < bytes.count else { throw failure("unexpected end") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(values)
            }
            throw failure("expected ',' or ']'")
        }
    }

    private mutating func parseNumber() throws(ProtocolError) -> JSONValue {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        func digits() -> Int {
            let from = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            return position - from
        }
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("expected digits") }
        if integerDigits > 1 && bytes[start + (bytes[start] == UInt8(ascii: "-") ? 1 : 0)] == UInt8(ascii: "0") {
            throw failure("leading zero")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw failure("expected digits after '.'") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw failure("expected digits in the exponent") }
        }
        // Most numbers (ids, limits, coordinates) are exact from their digits: made without strtod.
        let end = position
        let exact = bytes.withUnsafeBufferPointer {
            JSONNumber.exactValue(UnsafeBufferPointer(rebasing: $0[start..<end]))
        }
        if let exact { return .number(exact) }
        guard let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)), value.isFinite else {
            throw failure("number out of range")
        }
        return .number(value)
    }

    private mutating func parseString() throws(ProtocolError) -> String {
        position += 1  // the opening quote
        // Most strings have no escape: made from their bytes at once.
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\"),
            bytes[position] >= 0x20
        {
            position += 1
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
            position += 1
            return String(decoding: bytes[start..<position - 1], as: UTF8.self)
        }
        // An escape (or the end) comes first: the bytes read so far are the first run, not read again.
        var scalars = String.UnicodeScalarView()
        var run = start
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flush(position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            flush(position)
            position += 1
            guard position < bytes.count else { break }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800...0xDBFF).contains(code) {
                    // A surrogate pair: the low half must follow.
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { throw failure("lone surrogate") }
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure("bad surrogate pair") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
                scalars.append(scalar)
            default:
                throw failure("invalid escape")
            }
            run = position
        }
        throw failure("unterminated string")
    }

    /// Exactly four hex digits. (`UInt32(_:radix:)` would also take a sign: `\u+041` is not JSON.)
    private mutating func parseHex4() throws(ProtocolError) -> UInt32 {
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
