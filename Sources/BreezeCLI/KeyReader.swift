/// A key the interactive search acts on.
package enum Key: Equatable, Sendable {
    /// Text typed (printable characters, one or more).
    case text(String)
    case enter, backspace, up, down
    /// Ctrl-U: clear the search line.
    case clearLine
    /// Ctrl-S: save the city under the cursor.
    case save
    /// Escape pressed alone.
    case escape
    /// Ctrl-C: leave, cancelled (exit 130).
    case interrupt
}

/// Turns the bytes a terminal in raw mode sends into keys: UTF-8 text, control keys, and the escape sequences of
/// the arrow keys (`ESC [ A`, `ESC O A`). A sequence or character split between two reads waits for the rest; an
/// Escape with nothing after it is a key of its own once `flushEscape` says no sequence followed.
package struct KeyReader {
    package init() {}

    /// Bytes kept for an unfinished sequence: far more than any key's.
    static let maximumPending = 32

    private var pending: [UInt8] = []

    /// An Escape (or the start of a sequence) waits for more bytes.
    package var isWaiting: Bool { !pending.isEmpty }

    /// The keys `bytes` complete.
    package mutating func push(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        func add(_ key: Key) {
            if case .text(let more) = key, case .text(let text)? = keys.last {
                keys[keys.count - 1] = .text(text + more)
            } else {
                keys.append(key)
            }
        }
        scan: while index < pending.count {
            let byte = pending[index]
            switch byte {
            case 0x1B:
                guard index + 1 < pending.count else { break scan }
                let next = pending[index + 1]
                guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else {
                    add(.escape)
                    index += 1
                    continue
                }
                // Parameters, then a final byte in 0x40...0x7E.
                var end = index + 2
                while end < pending.count, (0x20...0x3F).contains(pending[end]) { end += 1 }
                guard end < pending.count else {
                    if pending.count - index > Self.maximumPending { index = pending.count }
                    break scan
                }
                switch pending[end] {
                case UInt8(ascii: "A"): add(.up)
                case UInt8(ascii: "B"): add(.down)
                default: break  // other keys (left, right, function keys) do nothing here
                }
                index = end + 1
            case 0x0D, 0x0A:
                add(.enter)
                index += 1
            case 0x7F, 0x08:
                add(.backspace)
                index += 1
            case 0x03:
                add(.interrupt)
                index += 1
            case 0x04:
                // Ctrl-D ends the input: leaving, as Esc does (only Ctrl-C is a cancel).
                add(.escape)
                index += 1
            case 0x0E:
                add(.down)
                index += 1
            case 0x10:
                add(.up)
                index += 1
            case 0x15:
                add(.clearLine)
                index += 1
            case 0x13:
                add(.save)
                index += 1
            case 0x00..<0x20: index += 1
            case 0x20..<0x80:
                add(.text(String(UnicodeScalar(byte))))
                index += 1
            default:
                // A byte that cannot start a character, or a start not followed by continuation bytes, is dropped
                // alone: what follows it is read as it is.
                let length = byte >= 0xF8 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                let continuation = pending[(index + 1)..<min(index + length, pending.count)]
                if length == 1 || continuation.contains(where: { $0 & 0xC0 != 0x80 }) {
                    index += 1
                    continue
                }
                guard index + length <= pending.count else { break scan }
                if let text = String(validating: pending[index..<index + length], as: UTF8.self),
                    text.unicodeScalars.allSatisfy({ $0.value >= 0xA0 })
                {
                    add(.text(text))
                }
                index += length
            }
        }
        pending.removeFirst(index)
        return keys
    }

    /// What is left when no more bytes came in time: a lone Escape is the Escape key; anything else is dropped.
    package mutating func flushEscape() -> [Key] {
        defer { pending = [] }
        return pending.first == 0x1B ? [.escape] : []
    }
}
