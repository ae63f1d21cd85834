import BreezeSystem
internal import CGPS

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to gpsd through libgps. Used by one thread only; closes exactly once.
final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var api: CGPS_api
    private var isOpen = false
    let address: GPSDAddress
    private var framer = GPSDLineFramer()
    /// Where each `recv` lands: one buffer for the connection's life, not one allocated and zeroed per read.
    private var chunk = [UInt8](repeating: 0, count: 8_192)
    /// How much one `readAvailable` reads at most: a gpsd sending faster than its lines are used is read in turns,
    /// never into one ever-growing batch.
    static let maximumBytesPerRead = 65_536

    /// Wraps `gps_open`. Throws saying what failed: libgps missing, a name that does not resolve, nothing listening,
    /// or a system call, with libgps's code or errno as the cause.
    init(address: GPSDAddress) throws(GPSDError) {
        self.address = address
        api = try LibGPS.api()
        guard let data = CGPS_new() else { throw GPSDError(.system, "out of memory for a gpsd connection") }
        self.data = data
        if CGPS_open(&api, address.host, String(address.port), data) != 0 {
            let code = errno
            throw Self.openError(code, address: address)
        }
        isOpen = true
    }

    /// What a failed `gps_open` left in errno: libgps's own negative codes (its `netlib` layer's), or an errno.
    static func openError(_ code: Int32, address: GPSDAddress) -> GPSDError {
        guard code < 0 else {
            let cause = SystemCallError(call: "gps_open", errno: code)
            let detail = code == 0 ? "libgps gave no reason" : cause.reason
            return GPSDError(.system, "cannot connect to gpsd at \(address): \(detail)", cause: code == 0 ? nil : cause)
        }
        let cause = LibGPSError(code: code)
        switch code {
        case CGPS_NOHOST:
            return GPSDError(
                .hostNotFound, "cannot resolve gpsd's host \"\(address.host)\": \(cause.message)", cause: cause)
        case CGPS_NOSERVICE:
            return GPSDError(
                .badAddress, "gpsd's port \"\(address.port)\" is not a port: \(cause.message)", cause: cause)
        case CGPS_NOCONNECT:
            return GPSDError(
                .unreachable, "nothing accepts connections at \(address): \(cause.message)", cause: cause)
        default:
            return GPSDError(
                .badAddress, "cannot make a connection to gpsd at \(address): \(cause.message)", cause: cause)
        }
    }

    /// Asks gpsd for reports as JSON: what `gps_stream(WATCH_ENABLE | WATCH_JSON)` sends, sent here with
    /// MSG_NOSIGNAL (libgps writes with write(2), which raises SIGPIPE when gpsd has just gone).
    func watch() throws(GPSDError) {
        let request = Array(#"?WATCH={"enable":true,"json":true};"#.utf8)
        var sent = 0
        while sent < request.count {
            do throws(SystemCallError) {
                sent += try syscall("send") {
                    request[sent...].withUnsafeBytes {
                        send(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                    }
                }
            } catch {
                throw GPSDError(
                    .lost, "gpsd at \(address) did not take the watch request: \(error.reason)", cause: error)
            }
        }
    }

    var fileDescriptor: Int32 {
        CGPS_fd(data)
    }

    /// Reads what gpsd has sent so far (up to `maximumBytesPerRead`) and returns its complete report lines. Reads
    /// the socket itself, without blocking; throws when the connection is gone.
    func readAvailable() throws(GPSDError) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var total = 0
        while total < Self.maximumBytesPerRead {
            let received: Int?
            do throws(SystemCallError) {
                received = try syscallUnlessWouldBlock("recv") {
                    chunk.withUnsafeMutableBytes { recv(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                }
            } catch {
                throw GPSDError(.lost, "lost gpsd at \(address): \(error.reason)", cause: error)
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
        _ = CGPS_close(&api, data)
    }

    deinit {
        close()
        CGPS_free(data)
    }
}
