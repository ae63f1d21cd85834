/// Splits a byte stream into protocol lines: UTF-8 text ending in "\n" (a "\r" before it is dropped).
///
/// Bounded: a line longer than `maximumLength` is not kept; the framer reports it once and skips to the next
/// newline, so a client that sends garbage cannot make the server hold unbounded memory.
public struct LineFramer: Sendable {
    public enum Output: Hashable, Sendable {
        case line(String)
        /// A line longer than the limit (its bytes were dropped).
        case tooLong
        /// A line that is not valid UTF-8 (or holds a NUL byte).
        case invalidText
    }

    public let maximumLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false

    public init(maximumLength: Int = 65_536) {
        self.maximumLength = maximumLength
    }

    /// Bytes held for a line not yet complete.
    public var pendingCount: Int { buffer.count }

    /// Whether a line has begun and not ended: bytes held, or an overlong line being skipped (which holds none).
    public var isInsideLine: Bool { !buffer.isEmpty || discarding }

    /// Feeds bytes; returns the lines they complete, in order. Works a line at a time, not a byte at a time: a line
    /// that arrives whole is read where it lies, without being copied into the buffer first.
    public mutating func push(_ bytes: some Collection<UInt8>) -> [Output] {
        let bytes = Array(bytes)
        var outputs: [Output] = []
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: 0x0A) {
            let part = rest[..<newline]
            rest = rest[(newline + 1)...]
            if discarding {
                discarding = false
            } else if buffer.count + part.count > maximumLength {
                outputs.append(.tooLong)
            } else if buffer.isEmpty {
                outputs.append(Self.line(part))
            } else {
                buffer.append(contentsOf: part)
                outputs.append(Self.line(buffer[...]))
            }
            buffer.removeAll(keepingCapacity: buffer.count <= 4_096)
        }
        guard !discarding, !rest.isEmpty else { return outputs }
        if buffer.count + rest.count > maximumLength {
            outputs.append(.tooLong)
            buffer.removeAll()
            discarding = true
        } else {
            buffer.append(contentsOf: rest)
        }
        return outputs
    }

    private static func line(_ line: ArraySlice<UInt8>) -> Output {
        var bytes = line
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return .invalidText }
        return .line(text)
    }
}
