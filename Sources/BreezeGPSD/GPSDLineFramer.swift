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
        var lines: [[UInt8]] = []
        var start = bytes.startIndex
        while start != bytes.endIndex {
            guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
                take(bytes[start...])
                break
            }
            take(bytes[start..<newline])
            if !discarding { lines.append(pending) }
            pending.removeAll(keepingCapacity: true)
            discarding = false
            start = bytes.index(after: newline)
        }
        return lines
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
