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

    /// Feeds bytes; returns the lines they complete, in order.
    public mutating func push(_ bytes: some Collection<UInt8>) -> [Output] {
        var outputs: [Output] = []
        for byte in bytes {
            if byte == 0x0A {
                if discarding {
                    discarding = false
                } else {
                    outputs.append(finishLine())
                }
                buffer.removeAll(keepingCapacity: buffer.count <= 4_096)
                continue
            }
            if discarding { continue }
            buffer.append(byte)
            if buffer.count > maximumLength {
                outputs.append(.tooLong)
                buffer.removeAll()
                discarding = true
            }
        }
        return outputs
    }

    private func finishLine() -> Output {
        var bytes = buffer[...]
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return .invalidText }
        return .line(text)
    }
}
