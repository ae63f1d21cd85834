internal import CGPS

#if canImport(Glibc)
import Glibc
#endif

/// One connection to gpsd through libgps. Used by one thread only; closes exactly once.
final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var isOpen = false
    let address: GPSDAddress
    /// Bytes of a report line not yet complete. gpsd's lines are short; anything longer than this is not a
    /// report and is dropped.
    private var pending: [UInt8] = []
    private static let maximumLineLength = 65_536

    /// Wraps `gps_open`.
    init(address: GPSDAddress) throws(GPSDError) {
        self.address = address
        guard let data = CGPS_new() else { throw GPSDError(.unreachable, "out of memory for a gpsd connection") }
        self.data = data
        if CGPS_open(address.host, String(address.port), data) != 0 {
            let detail = errno != 0 ? String(cString: strerror(errno)) : String(cString: CGPS_errstr(errno))
            throw GPSDError(.unreachable, "cannot connect to gpsd at \(address): \(detail)")
        }
        isOpen = true
    }

    /// Wraps `gps_stream(WATCH_ENABLE | WATCH_JSON)`.
    func watch() throws(GPSDError) {
        if CGPS_watch(data) != 0 {
            throw GPSDError(.lost, "gpsd at \(address) did not take the watch request")
        }
    }

    var fileDescriptor: Int32 {
        CGPS_fd(data)
    }

    /// Reads every report gpsd has sent so far and returns the TPV reports among them. Reads the socket itself
    /// (without blocking) and parses each line with `gps_unpack`; throws when the connection is gone.
    func readAvailable() throws(GPSDError) -> [CGPS_Fix] {
        var fixes: [CGPS_Fix] = []
        var chunk = [UInt8](repeating: 0, count: 8_192)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            if count <= 0 {
                let detail = count == 0 ? "gpsd closed the connection" : String(cString: strerror(errno))
                throw GPSDError(.lost, "lost gpsd at \(address): \(detail)")
            }
            pending += chunk[0..<count]
            while let newline = pending.firstIndex(of: 0x0A) {
                var line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                line.append(0)
                let parsed = line.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        CGPS_unpack($0, data)
                    }
                }
                var fix = CGPS_Fix()
                if parsed == 0, CGPS_take_fix(data, &fix) != 0 { fixes.append(fix) }
            }
            if pending.count > Self.maximumLineLength { pending.removeAll() }  // garbage, not a report
            if count < chunk.count { break }
        }
        return fixes
    }

    /// Wraps `gps_close`. Later calls do nothing.
    func close() {
        guard isOpen else { return }
        isOpen = false
        _ = CGPS_close(data)
    }

    deinit {
        close()
        CGPS_free(data)
    }
}
