internal import CGPS

#if canImport(Glibc)
import Glibc
#endif

/// One connection to gpsd through libgps. Used by one thread only; closes exactly once.
final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var isOpen = false
    let address: GPSDAddress

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

    /// Reads every report gpsd has sent so far and returns the TPV reports among them.
    /// Wraps `gps_waiting` and `gps_read`; throws when the connection is gone (gpsd died or closed it).
    func readAvailable() throws(GPSDError) -> [CGPS_Fix] {
        var fixes: [CGPS_Fix] = []
        repeat {
            CGPS_clear_set(data)
            let count = CGPS_read(data)
            if count < 0 {
                let detail = errno != 0 ? String(cString: strerror(errno)) : "gpsd closed the connection"
                throw GPSDError(.lost, "lost gpsd at \(address): \(detail)")
            }
            var fix = CGPS_Fix()
            if CGPS_take_fix(data, &fix) != 0 { fixes.append(fix) }
        } while CGPS_waiting(data, 0) != 0
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
