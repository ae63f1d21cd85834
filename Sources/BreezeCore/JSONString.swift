/// JSON string literals (RFC 8259): the one escaper, for the socket protocol's lines and the places index's
/// metadata alike. Quotes, backslashes and control characters are escaped, and U+2028 and U+2029 too (JavaScript
/// reads them as line ends); everything else is written as it is.
public enum JSONString {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = ""
        append(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal, quotes included, to `out`.
    @inlinable
    public static func append(_ text: String, to out: inout String) {
        out += "\""
        // Most text needs no escape: appended whole, not a scalar at a time (which costs most of encoding a reply).
        // 0xE2 leads U+2028 and U+2029 (and other characters, which then take the slow path, still correct).
        var text = text
        let plain = text.withUTF8 { bytes in !bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 } }
        if plain {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar == "\u{2028}" || scalar == "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Appends `text` as a JSON string literal, quotes included, to UTF-8 bytes: the same literal `append(_:to:)`
    /// writes to a String, without a String's per-append bookkeeping (most of what encoding a reply costs).
    @inlinable
    public static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        let plain = text.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2 { return false }
            out.append(0x22)
            out.append(contentsOf: bytes)
            out.append(0x22)
            return true
        }
        if !plain { out.append(contentsOf: quoted(text).utf8) }
    }
}
