import BreezeCore

/// A JSON value from one gpsd report line, parsed strictly (RFC 8259): libgps's own parser reads `0x2E` as 0 and
/// `-33.86abc` as -33.86, so a line is used only when all of it is valid JSON.
enum GPSDJSON: Equatable, Sendable {
    case object(GPSDObject)
    case array([GPSDJSON])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Nesting deeper than any gpsd report (SKY: an object in an array in an object); deeper input is refused
    /// rather than recursed into.
    static let maximumDepth = 16

    /// Parses a whole line (trailing spaces, tabs and a carriage return allowed); nil for anything that is not one
    /// JSON value.
    static func parse(_ bytes: some Collection<UInt8>) -> GPSDJSON? {
        var parser = Parser(bytes: Array(bytes))
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipWhitespace()
        return parser.index == parser.bytes.count ? value : nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0D, 0x0A: index += 1
                default: return
                }
            }
        }

        private func peek() -> UInt8? {
            index < bytes.count ? bytes[index] : nil
        }

        private mutating func take(_ literal: String) -> Bool {
            let expected = Array(literal.utf8)
            guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
            else { return false }
            index += expected.count
            return true
        }

        mutating func value(depth: Int) -> GPSDJSON? {
            guard depth < GPSDJSON.maximumDepth else { return nil }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "t"): return take("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return take("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return take("null") ? .null : nil
            default: return number().map { .number($0) }
            }
        }

        private mutating func object(depth: Int) -> GPSDJSON? {
            index += 1
            var members = GPSDObject()
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\""), let key = key() else { return nil }
                skipWhitespace()
                guard peek() == UInt8(ascii: ":") else { return nil }
                index += 1
                // A repeated key is refused: two readers of the same line could otherwise disagree on its value.
                guard let member = value(depth: depth + 1), members.insert(key, member) else {
                    return nil
                }
                skipWhitespace()
                switch peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return .object(members)
                default: return nil
                }
            }
        }

        private mutating func array(depth: Int) -> GPSDJSON? {
            index += 1
            var elements: [GPSDJSON] = []
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipWhitespace()
                switch peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return .array(elements)
                default: return nil
                }
            }
        }

        /// A member's name, its opening quote next. One without escapes, as gpsd writes them all, is told from its
        /// bytes when it is a known name; any other is read as a string.
        private mutating func key() -> GPSDKey? {
            let quote = UInt8(ascii: "\"")
            let backslash = UInt8(ascii: "\\")
            var end = index + 1
            while end < bytes.count, bytes[end] != quote, bytes[end] != backslash, bytes[end] >= 0x20 { end += 1 }
            if end < bytes.count, bytes[end] == quote {
                let start = index + 1
                let name = bytes.withUnsafeBufferPointer {
                    GPSDKey.Name.spelled(by: UnsafeBufferPointer(rebasing: $0[start..<end]))
                }
                if let name {
                    index = end + 1
                    return .known(name)
                }
            }
            return string().map(GPSDKey.init)
        }

        /// A string after its opening quote is checked: escapes, no control characters, valid UTF-8 (a lone
        /// surrogate escape is refused).
        private mutating func string() -> String? {
            index += 1
            // Most strings (every key, gpsd's class names and times) hold no escape: read in one piece.
            let quote = UInt8(ascii: "\"")
            let backslash = UInt8(ascii: "\\")
            var end = index
            while end < bytes.count, bytes[end] != quote, bytes[end] != backslash, bytes[end] >= 0x20 { end += 1 }
            if end < bytes.count, bytes[end] == quote {
                guard let text = Self.text(bytes, index..<end) else { return nil }
                index = end + 1
                return text
            }
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() -> Bool {
                guard !raw.isEmpty else { return true }
                guard let text = String(validating: raw, as: UTF8.self) else { return false }
                scalars.append(contentsOf: text.unicodeScalars)
                raw.removeAll(keepingCapacity: true)
                return true
            }
            while let byte = peek() {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return flush() ? String(scalars) : nil
                case UInt8(ascii: "\\"):
                    guard flush(), let escaped = peek() else { return nil }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        scalars.append(scalar)
                    default: return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    raw.append(byte)
                }
            }
            return nil
        }

        /// `bytes[range]` as text, when they are valid UTF-8. ASCII, nearly every string gpsd sends, is taken as it
        /// is: validating it through the generic path costs more than the rest of the string's parse.
        private static func text(_ bytes: [UInt8], _ range: Range<Int>) -> String? {
            bytes.withUnsafeBufferPointer { all in
                let part = UnsafeBufferPointer(rebasing: all[range])
                return part.allSatisfy { $0 < 0x80 }
                    ? String(decoding: part, as: UTF8.self) : String(validating: part, as: UTF8.self)
            }
        }

        /// The four hex digits after `\u`, and a low surrogate's escape after a high one.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let first = hex4() else { return nil }
            if (0xD800..<0xDC00).contains(first) {
                guard take("\\u"), let second = hex4(), (0xDC00..<0xE000).contains(second) else { return nil }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            }
            return Unicode.Scalar(first)
        }

        private mutating func hex4() -> UInt32? {
            guard bytes.count - index >= 4 else { return nil }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = Self.hexDigit(byte) else { return nil }
                value = value << 4 | digit
            }
            index += 4
            return value
        }

        private static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        /// A number in JSON's grammar (no hex, no leading zeros, no `+`, no NaN); nil when it does not fit a finite
        /// Double.
        private mutating func number() -> Double? {
            let start = index
            func digits() -> Bool {
                let first = index
                while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
                return index > first
            }
            if peek() == UInt8(ascii: "-") { index += 1 }
            if peek() == UInt8(ascii: "0") {
                index += 1
            } else if !digits() {
                return nil
            }
            if peek() == UInt8(ascii: ".") {
                index += 1
                guard digits() else { return nil }
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                index += 1
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
                guard digits() else { return nil }
            }
            let end = index
            return bytes.withUnsafeBufferPointer { all -> Double? in
                let text = UnsafeBufferPointer(rebasing: all[start..<end])
                // Most of gpsd's numbers are exact from their digits: made without strtod.
                if let exact = JSONNumber.exactValue(text) { return exact }
                // The grammar above let through only ASCII.
                guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
                return value
            }
        }
    }
}
