import BreezeCore
import FoundationEssentials

/// One connection's worth of GeoClue: from connecting to the bus until GeoClue or the bus goes away.
struct GeoClueSession {
    enum Outcome {
        /// The session ended (GeoClue exited, the bus dropped us, a call failed), and why; `hadFix` resets the
        /// backoff. The source reports the loss with the time of its next try.
        case lost(PermissionReason, hadFix: Bool)
        /// The source was stopped.
        case stopped
        /// GeoClue's policy refused us; asking again soon would be refused again.
        case refused
    }

    let source: GeoClueSource
    let continuation: AsyncStream<LocationSourceEvent>.Continuation
    private var configuration: GeoClueSource.Configuration { source.configuration }
    private typealias Reason = PermissionReason

    static let whitelistHint =
        "add breezed to the agent whitelist in /etc/geoclue/geoclue.conf "
        + "([agent] whitelist=…;breezed), then restart geoclue; or set [geoclue] agent=false in breezed.conf"

    /// Signals waiting to be handled. Any program on the bus can send this connection signals; only the newest
    /// position matters, and the end-of-connection marker is always the newest, so dropping older ones is harmless.
    static let signalQueueLimit = 64

    func run() async -> Outcome {
        let bus: BusConnection
        do {
            bus = try await BusConnection.system(address: configuration.busAddress)
        } catch {
            return .lost(
                Reason(
                    code: .notRunning, message: "cannot reach GeoClue: \(error.message)",
                    hint: "is dbus running ('systemctl status dbus')?"),
                hadFix: false)
        }
        guard source.register(bus) else {
            bus.close()
            return .stopped
        }
        defer {
            _ = source.register(nil)
            bus.close()
        }
        let (signals, signalContinuation) = AsyncStream.makeStream(
            of: BusConnection.Message?.self, bufferingPolicy: .bufferingNewest(Self.signalQueueLimit))
        bus.onSignal { signalContinuation.yield($0) }
        bus.onClose { _ in
            signalContinuation.yield(nil)
            signalContinuation.finish()
        }
        return await withTaskCancellationHandler {
            await session(bus, signals)
        } onCancel: {
            bus.close()
        }
    }

    private func call(
        _ bus: BusConnection, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []
    ) async throws(BusError) -> [DBusValue] {
        try await bus.call(
            GeoClueSource.service, path, interface, member, arguments, timeout: configuration.callTimeout)
    }

    private func session(_ bus: BusConnection, _ signals: AsyncStream<BusConnection.Message?>) async -> Outcome {
        do throws(BusError) {
            try await bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(GeoClueSource.service)'")
        } catch {
            return lost(error, doing: "watching GeoClue's name")
        }

        if configuration.agent {
            let source = self.source
            bus.export(path: GeoClueSource.agentPath) { message in Self.answerAgent(message, source: source) }
            do throws(BusError) {
                _ = try await call(
                    bus, GeoClueSource.managerPath, "org.freedesktop.GeoClue2.Manager", "AddAgent",
                    [.string(configuration.desktopID)])
            } catch {
                if error.isAccessDenied {
                    continuation.yield(
                        .restricted(
                            Reason(
                                code: .policy,
                                message: "GeoClue does not let breezed act as its location agent: \(error.message)",
                                hint: Self.whitelistHint)))
                    return .refused
                }
                return lost(error, doing: "registering as GeoClue's agent")
            }
        }

        let client: String
        do throws(BusError) {
            let reply = try await call(bus, GeoClueSource.managerPath, "org.freedesktop.GeoClue2.Manager", "GetClient")
            guard let path = reply.first?.string, reply.first?.signature == "o" else {
                return lost(
                    .badReply("GetClient answered \(reply.map(\.signature).joined()), not an object path"),
                    doing: "getting a GeoClue client")
            }
            client = path
        } catch {
            if error.isTimeout && !configuration.agent {
                // GeoClue 2.6 holds GetClient until an agent registers for our user; with none, it never answers.
                continuation.yield(
                    .restricted(
                        Reason(
                            code: .policy,
                            message: "GeoClue did not answer: it waits for a location agent for breezed's user",
                            hint: "set [geoclue] agent=true in breezed.conf and " + Self.whitelistHint)))
                return .refused
            }
            if error.isAccessDenied {
                continuation.yield(
                    .denied(
                        Reason(
                            code: .accessDenied, message: "GeoClue refused a client: \(error.message)",
                            hint: Self.allowHint)))
                return .refused
            }
            return lost(error, doing: "getting a GeoClue client")
        }

        do throws(BusError) {
            let interface = "org.freedesktop.GeoClue2.Client"
            try await bus.setProperty(
                GeoClueSource.service, client, interface, "DesktopId", .string(configuration.desktopID),
                timeout: configuration.callTimeout)
            try await bus.setProperty(
                GeoClueSource.service, client, interface, "RequestedAccuracyLevel",
                .uint32(configuration.accuracyLevel), timeout: configuration.callTimeout)
            try await bus.setProperty(
                GeoClueSource.service, client, interface, "DistanceThreshold",
                .uint32(configuration.distanceThreshold), timeout: configuration.callTimeout)
            // Subscribe before Start: the first LocationUpdated can come before Start's reply.
            try await bus.addMatch(
                "type='signal',sender='\(GeoClueSource.service)',path='\(client)',"
                    + "interface='org.freedesktop.GeoClue2.Client',member='LocationUpdated'")
            _ = try await call(bus, client, interface, "Start")
        } catch {
            if error.isAccessDenied {
                if error.message.contains("disabled") {
                    // Our own switch, through the agent: the location service already says "switched off".
                    continuation.yield(.denied(.switchedOff))
                    return .refused
                }
                continuation.yield(
                    .denied(
                        Reason(
                            code: .accessDenied, message: "GeoClue refused breezed: \(error.message)",
                            hint: Self.allowHint)))
                return .refused
            }
            return lost(error, doing: "starting the GeoClue client")
        }
        continuation.yield(.connected)

        var hadFix = false
        for await signal in signals {
            guard let signal else { break }  // the connection ended
            if signal.member == "NameOwnerChanged", signal.arguments.count == 3,
                signal.arguments[0].string == GeoClueSource.service, signal.arguments[2].string == ""
            {
                return .lost(
                    Reason(
                        code: .lost, message: "GeoClue exited; breezed reconnects when it is back",
                        hint: "GeoClue starts on demand; if it keeps failing, see 'journalctl -u geoclue'"),
                    hadFix: hadFix)
            }
            guard signal.member == "LocationUpdated", signal.path == client, signal.arguments.count == 2,
                let location = signal.arguments[1].string
            else { continue }
            do throws(BusError) {
                let properties = try await bus.allProperties(
                    GeoClueSource.service, location, "org.freedesktop.GeoClue2.Location",
                    timeout: configuration.callTimeout)
                if let fix = GeoClueSource.fix(fromLocation: properties) {
                    hadFix = true
                    continuation.yield(.fix(fix))
                }
            } catch {
                if error.isServiceUnknown { continue }  // the object was superseded before we read it
                if error.name == BusError.disconnectedName { break }
            }
        }
        if Task.isCancelled { return .stopped }
        return .lost(
            Reason(code: .lost, message: "lost the system bus connection to GeoClue", hint: "is dbus running?"),
            hadFix: hadFix)
    }

    static let allowHint =
        "allow it in /etc/geoclue/geoclue.conf: a [breezed] section with allowed=true, "
        + "system=true and users= empty (or listing breezed's user), then restart geoclue"

    /// Turns a failed call into the session's end, with the reason the source reports.
    private func lost(_ error: BusError, doing what: String) -> Outcome {
        let reason: Reason
        if error.isServiceUnknown {
            reason = Reason(
                code: .notRunning, message: "GeoClue is not running",
                hint: "install geoclue-2.0 ('apt-get install geoclue-2.0'); it starts on demand through D-Bus")
        } else if error.isTimeout {
            reason = Reason(
                code: .notRunning, message: "GeoClue did not answer while \(what) (\(error.message))",
                hint: "check 'journalctl -u geoclue'; breezed asks again later")
        } else {
            reason = Reason(code: .lost, message: "GeoClue failed while \(what): \(error.message)", hint: nil)
        }
        return .lost(reason, hadFix: false)
    }

    /// GeoClue's accuracy levels: 0 (none) to 8 (exact).
    static let accuracyLevels: ClosedRange<UInt32> = 0...8

    /// The level an `AuthorizeApp` call asks for, clamped to GeoClue's levels (a peer on the bus can send any
    /// number, of any size); nil when it is not an unsigned number.
    static func requestedLevel(_ value: DBusValue) -> UInt32? {
        guard let raw = value.uint64 else { return nil }
        return UInt32(exactly: min(raw, UInt64(accuracyLevels.upperBound)))
    }

    /// The agent: GeoClue asks it whether an app may have the location (`AuthorizeApp`) and how precisely
    /// (`MaxAccuracyLevel`); the privacy switch answers both.
    static func answerAgent(_ message: BusConnection.Message, source: GeoClueSource) -> Result<[DBusValue], BusError> {
        let level = source.maxAccuracyLevel
        switch (message.interface, message.member) {
        case ("org.freedesktop.GeoClue2.Agent", "AuthorizeApp"):
            let requested = message.arguments.count > 1 ? (requestedLevel(message.arguments[1]) ?? level) : level
            return .success([.bool(level > 0), .uint32(min(requested, level))])
        case ("org.freedesktop.DBus.Properties", "Get"):
            guard message.arguments.count == 2, message.arguments[1].string == "MaxAccuracyLevel" else {
                return .failure(
                    BusError(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no such property"))
            }
            return .success([.variant(.uint32(level))])
        case ("org.freedesktop.DBus.Properties", "GetAll"):
            return .success([DBusValue.properties([("MaxAccuracyLevel", .uint32(level))])])
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return .success([.string(agentIntrospection)])
        default:
            return .failure(
                BusError(
                    name: "org.freedesktop.DBus.Error.UnknownMethod", message: "\(message.interface).\(message.member)")
            )
        }
    }

    static let agentIntrospection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.GeoClue2.Agent">
            <method name="AuthorizeApp">
              <arg name="desktop_id" type="s" direction="in"/>
              <arg name="req_accuracy_level" type="u" direction="in"/>
              <arg name="authorized" type="b" direction="out"/>
              <arg name="allowed_accuracy_level" type="u" direction="out"/>
            </method>
            <property name="MaxAccuracyLevel" type="u" access="read"/>
          </interface>
        </node>
        """
}
