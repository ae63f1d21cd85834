internal import CGPS
import BreezeSystem

#if canImport(Glibc)
import Glibc
#endif

/// One connection to gpsd through libgps. Used by one thread only; closes exactly once.
final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var isOpen = false
    let address: GPSDAddress
    private var framer = GPSDLineFramer()
    /// How much one `readAvailable` reads at most: a gpsd sending faster than its lines are used is read in turns,
    /// never into one ever-growing batch.
    static let maximumBytesPerRead = 65_536

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

    /// Reads what gpsd has sent so far (up to `maximumBytesPerRead`) and returns its complete report lines. Reads
    /// the socket itself, without blocking; throws when the connection is gone.
    func readAvailable() throws(GPSDError) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var chunk = [UInt8](repeating: 0, count: 8_192)
        var total = 0
        while total < Self.maximumBytesPerRead {
            let received: Int?
            do throws(SystemCallError) {
                received = try syscallUnlessWouldBlock("recv") {
                    chunk.withUnsafeMutableBytes { recv(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                }
            } catch {
                throw GPSDError(.lost, "lost gpsd at \(address): \(error.reason)")
            }
            guard let count = received else { break }
            if count == 0 { throw GPSDError(.lost, "lost gpsd at \(address): gpsd closed the connection") }
            total += count
            lines += framer.append(chunk[0..<count])
            if count < chunk.count { break }
        }
        return lines
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
