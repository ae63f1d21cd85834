internal import CMosquitto

#if canImport(Glibc)
    import Glibc
#endif

/// One libmosquitto client, driven by the thread that owns it: every call, and every callback, happens on that
/// thread (libmosquitto calls back from inside `readPackets`/`writePackets`), so it is deliberately not Sendable.
/// Owns its `struct mosquitto *` and destroys it exactly once, in `deinit`.
public final class MQTTSession {
    /// A message received on a subscription.
    public struct Message: Sendable {
        public var topic: String
        public var payload: [UInt8]
        public var retained: Bool
    }

    private let handle: OpaquePointer
    private let api: CMosquitto_api
    /// The CONNACK result: nil until it arrives, then 0 (accepted) or the refusal's code.
    public private(set) var connack: Int32?
    /// Called for every message received, on the driving thread.
    public var onMessage: ((Message) -> Void)?

    /// Wraps `mosquitto_new` with a clean session (nothing kept by the broker between connections).
    public init(clientID: String) throws(MQTTError) {
        api = try MQTTLibrary.api()
        guard let handle = api.new_!(clientID, true, nil) else {
            throw MQTTError(.library, "mosquitto_new: \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        // The context is this object, unretained: the callbacks run only inside this object's own calls.
        api.user_data_set!(handle, Unmanaged.passUnretained(self).toOpaque())
        api.connect_callback_set!(handle, connectCallback)
        api.message_callback_set!(handle, messageCallback)
        _ = api.int_option!(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
    }

    deinit { api.destroy!(handle) }

    /// The message the broker publishes for this client if it goes without a clean disconnect. Wraps `mosquitto_will_set`.
    public func setWill(topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = true) throws(MQTTError) {
        let result = payload.withUnsafeBytes { bytes in
            api.will_set!(handle, topic, Int32(bytes.count), bytes.baseAddress, qos, retain)
        }
        try check("mosquitto_will_set", result)
    }

    /// Wraps `mosquitto_username_pw_set`.
    public func setCredentials(username: String, password: String?) throws(MQTTError) {
        try check("mosquitto_username_pw_set", api.username_pw_set!(handle, username, password))
    }

    /// TLS with the server's certificate checked against `caFile` (nil: the system's authorities). Wraps
    /// `mosquitto_tls_set`.
    public func setTLS(caFile: String?) throws(MQTTError) {
        let result: Int32
        if let caFile {
            result = api.tls_set!(handle, caFile, nil, nil, nil, nil)
        } else {
            result = api.tls_set!(handle, nil, "/etc/ssl/certs", nil, nil, nil)
        }
        try check("mosquitto_tls_set", result)
    }

    /// Opens the connection (again) and sends CONNECT; the CONNACK arrives later, through `readPackets`. Blocking:
    /// the name is resolved and the TCP connection made here. Wraps `mosquitto_connect`, which closes any earlier
    /// connection first.
    public func connect(host: String, port: Int, keepalive: Int) throws(MQTTError) {
        connack = nil
        try check("mosquitto_connect", api.connect!(handle, host, Int32(port), Int32(keepalive)))
    }

    /// Wraps `mosquitto_publish`; the message is queued in the library and written by `writePackets`.
    public func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws(MQTTError) {
        let result = payload.withUnsafeBytes { bytes in
            api.publish!(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, qos, retain)
        }
        try check("mosquitto_publish", result)
    }

    /// Wraps `mosquitto_subscribe`.
    public func subscribe(_ pattern: String, qos: Int32 = 0) throws(MQTTError) {
        try check("mosquitto_subscribe", api.subscribe!(handle, nil, pattern, qos))
    }

    /// Sends DISCONNECT (the broker then drops the will). Wraps `mosquitto_disconnect`.
    public func disconnect() {
        _ = api.disconnect!(handle)
    }

    /// The connection's socket, or -1 while there is none. Wraps `mosquitto_socket`.
    public var socket: Int32 { api.socket!(handle) }

    /// Whether the library has bytes waiting to be written. Wraps `mosquitto_want_write`.
    public var wantsWrite: Bool { api.want_write!(handle) }

    /// Reads what the socket has, calling back for what arrives. Wraps `mosquitto_loop_read`.
    public func readPackets() throws(MQTTError) {
        let result = api.loop_read!(handle, 1)
        // A refusal ends the read with MOSQ_ERR_CONN_REFUSED; the CONNACK's own code says why.
        if let connack, connack != 0 { throw MQTTError.refused(connack) }
        try check("mosquitto_loop_read", result)
    }

    /// Writes what waits. Wraps `mosquitto_loop_write`.
    public func writePackets() throws(MQTTError) {
        try check("mosquitto_loop_write", api.loop_write!(handle, 1))
    }

    /// Keep-alive pings and their time-outs. Wraps `mosquitto_loop_misc`.
    public func housekeeping() throws(MQTTError) {
        try check("mosquitto_loop_misc", api.loop_misc!(handle))
    }

    /// Waits until the socket is readable (or writable while the library has bytes to write), `wakeFD` is
    /// readable, or `timeout` seconds pass, then reads and writes what it can. Returns whether `wakeFD` was readable.
    public func service(wakeFD: Int32, timeout: Double) throws(MQTTError) -> Bool {
        let fd = socket
        guard fd >= 0 else { throw MQTTError(.unreachable, "the connection is closed") }
        var events = Int16(POLLIN)
        if wantsWrite { events |= Int16(POLLOUT) }
        var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        let milliseconds = Int32(max(0, min(60, timeout)) * 1000)
        var ready: Int32
        repeat { ready = poll(&fds, nfds_t(wakeFD >= 0 ? 2 : 1), milliseconds) } while ready < 0 && errno == EINTR
        if ready > 0 {
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { try readPackets() }
            if fds[0].revents & Int16(POLLOUT) != 0 || wantsWrite { try writePackets() }
        }
        try housekeeping()
        return ready > 0 && fds[1].revents & Int16(POLLIN) != 0
    }

    fileprivate func connected(_ code: Int32) { connack = code }

    fileprivate func received(_ message: UnsafePointer<mosquitto_message>) {
        let message = message.pointee
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let count = max(0, Int(message.payloadlen))
        let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
        onMessage?(Message(topic: topic, payload: payload, retained: message.retain))
    }
}

private let connectCallback: CMosquitto_connect_callback = { _, context, code in
    guard let context else { return }
    Unmanaged<MQTTSession>.fromOpaque(context).takeUnretainedValue().connected(code)
}

private let messageCallback: CMosquitto_message_callback = { _, context, message in
    guard let context, let message else { return }
    Unmanaged<MQTTSession>.fromOpaque(context).takeUnretainedValue().received(message)
}
