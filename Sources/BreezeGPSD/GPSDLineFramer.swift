#if canImport(Glibc)
    import Glibc
#endif

/// Splits gpsd's byte stream into report lines, with a bound on a line's length.
///
/// A line longer than the bound is not a report: it is dropped up to and including its newline, so that its tail is
/// never read as a line of its own.
public struct GPSDLineFramer: Sendable {
    /// gpsd's longest reports (a SKY with every satellite in view, a DEVICES with many receivers) are a few KiB.
    public static let maximumLineLength = 16_384

    private var pending: [UInt8] = []
    /// Inside an overlong line: bytes are dropped until its newline.
    private var discarding = false

    /// Bytes held for an incomplete line (at most `maximumLineLength`).
    public var pendingCount: Int { pending.count }

    /// Adds bytes from the socket and returns the complete lines among them, without their newlines.
    public init() {}

    public mutating func append(_ bytes: some Collection<UInt8>) -> [[UInt8]] {
        if let lines = bytes.withContiguousStorageIfAvailable({ append(contiguous: $0) }) { return lines }
        return Array(bytes).withUnsafeBufferPointer { append(contiguous: $0) }
    }

    private mutating func append(contiguous bytes: UnsafeBufferPointer<UInt8>) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let rest = UnsafeBufferPointer(rebasing: bytes[start...])
            guard let newline = Self.newline(in: rest) else {
                take(rest)
                break
            }
            let line = UnsafeBufferPointer(rebasing: rest[..<newline])
            if pending.isEmpty && !discarding {
                // A line that came whole in this read (nearly every one) is copied out once, not through `pending`.
                if line.count <= Self.maximumLineLength { lines.append(Array(line)) }
            } else {
                take(line)
                if !discarding { lines.append(pending) }
                pending.removeAll(keepingCapacity: true)
            }
            discarding = false
            start += newline + 1
        }
        return lines
    }

    /// Where the first newline in `bytes` is.
    private static func newline(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, let found = memchr(base, 0x0A, bytes.count) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private mutating func take(_ part: some Collection<UInt8>) {
        guard !discarding else { return }
        if pending.count + part.count > Self.maximumLineLength {
            pending.removeAll()
            discarding = true
        } else {
            pending.append(contentsOf: part)
        }
    }
}
