import BreezeSystem
internal import CDBus
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A private connection to the system bus (honouring `DBUS_SYSTEM_BUS_ADDRESS`), driven by a thread of its own.
///
/// libdbus is touched only on that thread: callers queue work and wake it through a pipe, and the thread waits in
/// `poll` on the bus socket and the pipe, so nothing blocks the cooperative pool and nothing polls in a sleep loop.
/// Every method call has a timeout kept here (not libdbus's), and a dropped connection fails every pending call.
public final class BusConnection: Sendable {
    /// An incoming signal or method call.
    public struct Message: Sendable {
        public var sender: String
        public var path: String
        public var interface: String
        public var member: String
        public var arguments: [DBusValue]
    }

    public typealias SignalHandler = @Sendable (Message) -> Void
    /// Answers a method call on an exported object (runs on the bus thread: keep it short).
    public typealias MethodHandler = @Sendable (Message) -> Result<[DBusValue], BusError>

    fileprivate typealias Job = @Sendable (BusLoop) -> Void

    private struct Shared {
        var jobs: [Job] = []
        var stopped = false
        var signalHandler: SignalHandler?
        var closeHandler: (@Sendable (String) -> Void)?
        var objects: [String: MethodHandler] = [:]
    }

    private let shared = Mutex(Shared())
    private let wakeup = WakeupPipe()
    /// The connection's unique name on the bus (":1.42").
    public let uniqueName: String

    private init(uniqueName: String) {
        self.uniqueName = uniqueName
    }

    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS`, read at each connect (libdbus's own lookup reads it once per
    /// process), else the standard socket.
    public static var systemBusAddress: String {
        if let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty {
            return address
        }
        return "unix:path=/run/dbus/system_bus_socket"
    }

    /// Connects to the system bus (or the bus at `address`) on a new thread. Wraps `dbus_connection_open_private`
    /// and `dbus_bus_register`.
    public static func system(address: String? = nil) async throws(BusError) -> BusConnection {
        let address = address ?? systemBusAddress
        // nonisolated(unsafe): a pointer to the loaded table, which is written once before this and never after.
        nonisolated(unsafe) let dbus = try DBusLibrary.api()
        let result: Result<BusConnection, BusError> = await withCheckedContinuation { continuation in
            DedicatedThread.start(name: "breeze.dbus") {
                _ = dbus.pointee.threads_init_default()
                let error = CDBus_error_new(dbus)
                defer { CDBus_error_free(dbus, error) }
                func failure(_ what: String) -> Result<BusConnection, BusError> {
                    let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
                    return .failure(.disconnected("\(what): \(message)"))
                }
                guard let raw = dbus.pointee.connection_open_private(address, error) else {
                    continuation.resume(returning: failure("cannot connect to the system bus at \(address)"))
                    return
                }
                dbus.pointee.connection_set_exit_on_disconnect(raw, 0)
                guard dbus.pointee.bus_register(raw, error) != 0 else {
                    dbus.pointee.connection_close(raw)
                    dbus.pointee.connection_unref(raw)
                    continuation.resume(returning: failure("the system bus at \(address) refused us"))
                    return
                }
                let name = dbus.pointee.bus_get_unique_name(raw).map { String(cString: $0) } ?? ""
                let connection = BusConnection(uniqueName: name)
                continuation.resume(returning: .success(connection))
                BusLoop(dbus, raw: raw, owner: connection).run()
            }
        }
        return try result.get()
    }

    /// Closes the connection; pending calls fail with `disconnected`.
    public func close() {
        shared.withLock { $0.stopped = true }
        wakeup.wake()
    }

    /// Receives every signal the bus routes to us (subscribe with `addMatch`).
    public func onSignal(_ handler: @escaping SignalHandler) {
        shared.withLock { $0.signalHandler = handler }
    }

    /// Called once, on the bus thread, when the connection ends (closed, or dropped by the bus), with why.
    public func onClose(_ handler: @escaping @Sendable (String) -> Void) {
        shared.withLock { $0.closeHandler = handler }
    }

    /// Answers method calls to `path` with `handler`; nil stops answering.
    public func export(path: String, _ handler: MethodHandler?) {
        shared.withLock { $0.objects[path] = handler }
    }

    /// Calls a method and waits at most `timeout` seconds for the reply.
    public func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Double
    ) async throws(BusError) -> [DBusValue] {
        let what = "\(interface).\(member)"
        let result: Result<[DBusValue], BusError> = await withCheckedContinuation { continuation in
            let queued = enqueue { loop in
                loop.send(destination, path, interface, member, arguments, what: what, timeout: timeout, continuation)
            }
            if !queued { continuation.resume(returning: .failure(.disconnected("the bus connection is closed"))) }
        }
        return try result.get()
    }

    /// Emits a signal from one of our objects.
    public func emit(path: String, interface: String, member: String, _ arguments: [DBusValue]) {
        _ = enqueue { loop in loop.emit(path, interface, member, arguments) }
    }

    /// Subscribes to signals matching `rule` (`org.freedesktop.DBus.AddMatch`).
    public func addMatch(_ rule: String, timeout: Double = 5) async throws(BusError) {
        _ = try await call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", [.string(rule)],
            timeout: timeout)
    }

    /// `org.freedesktop.DBus.Properties.Set`: signature `ssv`, the value in a variant.
    public func setProperty(
        _ destination: String, _ path: String, _ interface: String, _ name: String, _ value: DBusValue, timeout: Double
    ) async throws(BusError) {
        _ = try await call(
            destination, path, "org.freedesktop.DBus.Properties", "Set",
            [.string(interface), .string(name), .variant(value)],
            timeout: timeout)
    }

    /// `org.freedesktop.DBus.Properties.GetAll`, as a dictionary; a reply of another shape is `badReply`.
    public func allProperties(
        _ destination: String, _ path: String, _ interface: String, timeout: Double
    ) async throws(BusError) -> [String: DBusValue] {
        let reply = try await call(
            destination, path, "org.freedesktop.DBus.Properties", "GetAll", [.string(interface)], timeout: timeout)
        guard let properties = reply.first?.stringDictionary else {
            throw BusError.badReply("GetAll on \(path) answered \(reply.map(\.signature).joined()), not a{sv}")
        }
        return properties
    }

    /// The longest a call may wait for its reply; a longer (or infinite, or NaN) timeout waits this long.
    static let maximumTimeout = 3_600.0

    /// A call's timeout in whole milliseconds, within 0...maximumTimeout (a Double can be anything).
    static func milliseconds(_ timeout: Double) -> Int {
        guard timeout.isFinite else { return Int(maximumTimeout * 1000) }
        return Int((min(max(timeout, 0), maximumTimeout) * 1000).rounded(.up))
    }

    // MARK: For the loop

    @discardableResult
    fileprivate func enqueue(_ job: @escaping Job) -> Bool {
        let accepted = shared.withLock { shared -> Bool in
            guard !shared.stopped else { return false }
            shared.jobs.append(job)
            return true
        }
        if accepted { wakeup.wake() }
        return accepted
    }

    fileprivate func takeJobs() -> (jobs: [Job], stopped: Bool) {
        shared.withLock { shared in
            defer { shared.jobs = [] }
            return (shared.jobs, shared.stopped)
        }
    }

    fileprivate func markStopped() {
        shared.withLock { $0.stopped = true }
    }

    fileprivate var signalHandler: SignalHandler? { shared.withLock { $0.signalHandler } }

    fileprivate var closeHandler: (@Sendable (String) -> Void)? { shared.withLock { $0.closeHandler } }

    fileprivate func handler(for path: String) -> MethodHandler? { shared.withLock { $0.objects[path] } }

    fileprivate var wakeupDescriptor: Int32 { wakeup.readEnd }

    fileprivate func drainWakeups() { wakeup.drain() }
}

/// The bus thread's own state: the libdbus connection and the calls waiting for replies. Used on that thread only.
private final class BusLoop {
    typealias Continuation = CheckedContinuation<Result<[DBusValue], BusError>, Never>

    struct Pending {
        var deadline: ContinuousClock.Instant
        var what: String
        var timeout: Double
        var continuation: Continuation
    }

    let dbus: UnsafePointer<CDBus_api>
    let codec: DBusMessageCodec
    let raw: OpaquePointer
    // Strong: the connection lives while its thread runs, until `close()` or the bus drops it.
    let owner: BusConnection
    var pending: [UInt32: Pending] = [:]

    init(_ dbus: UnsafePointer<CDBus_api>, raw: OpaquePointer, owner: BusConnection) {
        self.dbus = dbus
        codec = DBusMessageCodec(dbus)
        self.raw = raw
        self.owner = owner
    }

    func run() {
        var fd: Int32 = -1
        _ = dbus.pointee.connection_get_unix_fd(raw, &fd)
        var reason = "the bus connection is closed"
        while true {
            let (jobs, stopped) = owner.takeJobs()
            for job in jobs { job(self) }
            if stopped { break }
            _ = dbus.pointee.connection_read_write(raw, 0)
            while let message = dbus.pointee.connection_pop_message(raw) {
                handle(message)
                dbus.pointee.message_unref(message)
            }
            if dbus.pointee.connection_get_is_connected(raw) == 0 {
                reason = "the system bus closed the connection"
                break
            }
            let now = ContinuousClock.now
            for (serial, call) in pending where call.deadline <= now {
                pending[serial] = nil
                call.continuation.resume(returning: .failure(.timeout(call.what, call.timeout)))
            }
            var timeout: Int32 = -1
            if let next = pending.values.map(\.deadline).min() {
                let wait = now.duration(to: next)
                timeout = Int32(
                    max(
                        0,
                        min(
                            60_000,
                            wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1)))
            }
            var events = Int16(POLLIN)
            if dbus.pointee.connection_has_messages_to_send(raw) != 0 { events |= Int16(POLLOUT) }
            var fds = [
                pollfd(fd: owner.wakeupDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: fd, events: events, revents: 0),
            ]
            _ = poll(&fds, 2, timeout)
            if fds[0].revents != 0 { owner.drainWakeups() }
        }
        owner.markStopped()
        for (_, call) in pending { call.continuation.resume(returning: .failure(.disconnected(reason))) }
        pending = [:]
        // Anything queued after the stop is refused by `enqueue`; run what slipped in before it.
        for job in owner.takeJobs().jobs { job(self) }
        for (_, call) in pending { call.continuation.resume(returning: .failure(.disconnected(reason))) }
        pending = [:]
        dbus.pointee.connection_close(raw)
        dbus.pointee.connection_unref(raw)
        owner.closeHandler?(reason)
    }

    func send(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue],
        what: String, timeout: Double, _ continuation: Continuation
    ) {
        guard dbus.pointee.connection_get_is_connected(raw) != 0 else {
            continuation.resume(returning: .failure(.disconnected("the bus connection is closed")))
            return
        }
        guard dbus.pointee.validate_path(path, nil) != 0, dbus.pointee.validate_interface(interface, nil) != 0,
            dbus.pointee.validate_member(member, nil) != 0, dbus.pointee.validate_bus_name(destination, nil) != 0,
            let message = dbus.pointee.message_new_method_call(destination, path, interface, member)
        else {
            continuation.resume(returning: .failure(.badReply("\(what): not a valid call to \(destination) \(path)")))
            return
        }
        defer { dbus.pointee.message_unref(message) }
        guard codec.append(arguments, to: message) else {
            continuation.resume(returning: .failure(.badReply("\(what): arguments could not be written")))
            return
        }
        var serial: UInt32 = 0
        guard dbus.pointee.connection_send(raw, message, &serial) != 0 else {
            continuation.resume(returning: .failure(.disconnected("\(what): out of memory sending")))
            return
        }
        let deadline = ContinuousClock.now + .milliseconds(BusConnection.milliseconds(timeout))
        pending[serial] = Pending(deadline: deadline, what: what, timeout: timeout, continuation: continuation)
    }

    func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) {
        guard let message = dbus.pointee.message_new_signal(path, interface, member) else { return }
        defer { dbus.pointee.message_unref(message) }
        if codec.append(arguments, to: message) { _ = dbus.pointee.connection_send(raw, message, nil) }
    }

    private func handle(_ message: OpaquePointer) {
        let type = dbus.pointee.message_get_type(message)
        switch type {
        case CDBus_MESSAGE_TYPE_METHOD_RETURN(), CDBus_MESSAGE_TYPE_ERROR():
            guard let call = pending.removeValue(forKey: dbus.pointee.message_get_reply_serial(message)) else { return }
            if type == CDBus_MESSAGE_TYPE_ERROR() {
                let name = dbus.pointee.message_get_error_name(message).map { String(cString: $0) } ?? "unknown"
                let text = codec.arguments(of: message).first?.string ?? ""
                call.continuation.resume(returning: .failure(BusError(name: name, message: text)))
            } else {
                call.continuation.resume(returning: .success(codec.arguments(of: message)))
            }
        case CDBus_MESSAGE_TYPE_SIGNAL():
            owner.signalHandler?(incoming(message))
        case CDBus_MESSAGE_TYPE_METHOD_CALL():
            let call = incoming(message)
            let result =
                owner.handler(for: call.path)?(call)
                ?? .failure(
                    BusError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no object at \(call.path)"))
            guard dbus.pointee.message_get_no_reply(message) == 0 else { return }
            let reply: OpaquePointer?
            switch result {
            case .success(let values):
                reply = dbus.pointee.message_new_method_return(message)
                if let reply, !codec.append(values, to: reply) {
                    dbus.pointee.message_unref(reply)
                    return
                }
            case .failure(let error):
                reply = dbus.pointee.message_new_error(message, error.name, error.message)
            }
            if let reply {
                _ = dbus.pointee.connection_send(raw, reply, nil)
                dbus.pointee.message_unref(reply)
            }
        default:
            break
        }
    }

    private func incoming(_ message: OpaquePointer) -> BusConnection.Message {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        return BusConnection.Message(
            sender: text(dbus.pointee.message_get_sender(message)), path: text(dbus.pointee.message_get_path(message)),
            interface: text(dbus.pointee.message_get_interface(message)),
            member: text(dbus.pointee.message_get_member(message)), arguments: codec.arguments(of: message))
    }
}
