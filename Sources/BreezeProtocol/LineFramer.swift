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
    /// Bytes appended and not yet taken out as lines; `start` is where the next line begins.
    private var buffer: [UInt8] = []
    private var start = 0
    /// No newline lies in `buffer[start..<scanned]`: where the search for the next one resumes.
    private var scanned = 0
    /// Skipping an overlong line (already reported) up to its newline.
    private var discarding = false

    public init(maximumLength: Int = 65_536) {
        self.maximumLength = maximumLength
    }

    /// Bytes held: lines not yet taken out, and a line not yet complete.
    public var pendingCount: Int { buffer.count - start }

    /// Whether a line has begun and not ended: the bytes held end mid-line, or an overlong line is being skipped
    /// (which holds none).
    public var isInsideLine: Bool { discarding || (buffer.count > start && buffer.last != 0x0A) }

    /// Feeds bytes; returns the lines they complete, in order.
    public mutating func push(_ bytes: some Collection<UInt8>) -> [Output] {
        append(bytes)
        var outputs: [Output] = []
        while let output = next() { outputs.append(output) }
        return outputs
    }

    /// Keeps bytes without framing them: `next()` takes lines out one at a time, so that a reader that takes up
    /// only some of them (a server holding a client back) frames no more than it uses.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next line complete in what was appended (or the report of one too long or not text), or nil when no
    /// more is complete. A line longer than the limit is reported once, as soon as it is, and skipped to its
    /// newline.
    public mutating func next() -> Output? {
        while true {
            guard let newline = buffer[max(start, scanned)...].firstIndex(of: 0x0A) else {
                scanned = buffer.count
                if discarding {
                    forget(upTo: buffer.count)
                } else if buffer.count - start > maximumLength {
                    forget(upTo: buffer.count)
                    discarding = true
                    return .tooLong
                }
                return nil
            }
            let part = buffer[start..<newline]
            forget(upTo: newline + 1)
            if discarding {
                discarding = false
                continue
            }
            return part.count > maximumLength ? .tooLong : Self.line(part)
        }
    }

    /// Drops `buffer[..<end]`: taken out or skipped.
    private mutating func forget(upTo end: Int) {
        if end >= buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 4_096)
            start = 0
            scanned = 0
        } else {
            start = end
            scanned = max(scanned, end)
        }
    }

    private static func line(_ line: ArraySlice<UInt8>) -> Output {
        var bytes = line
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        // Plain ASCII without NUL (nearly every request) is valid UTF-8 as it is: made into text without the
        // generic validating initializer.
        let plain = bytes.withUnsafeBufferPointer { buffer -> String? in
            buffer.allSatisfy { $0 != 0 && $0 < 0x80 } ? String(decoding: buffer, as: UTF8.self) : nil
        }
        if let plain { return .line(plain) }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return .invalidText }
        return .line(text)
    }
}
