import BreezeGeoClue
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private system bus with the real GeoClue on it, fed positions by an NMEA socket the test controls.
///
/// `dbus-daemon` runs with the system bus configuration (deny by default, the shipped policy files) on a socket in a
/// temporary folder; GeoClue runs as its own user inside a mount namespace where a test `geoclue.conf` is bound over
/// `/etc/geoclue/geoclue.conf` (its path is fixed; the real file is not touched), with only the network-NMEA source
/// and a Wi-Fi source pointed at a dead loopback port.
public final class GeoClueRig: @unchecked Sendable {
    // @unchecked: set up in init, then only read; ChildProcess and FileHandle are safe to use from any thread.
    public static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/libexec/geoclue")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
            && getpwnam("geoclue") != nil
    }

    public let folder: String
    public let busAddress: String
    private let bus: ChildProcess
    private let nmea: ChildProcess
    private let nmeaInput: Pipe
    public private(set) var geoclue: ChildProcess?

    /// - Parameters:
    ///   - whitelist: the `[agent] whitelist` (breezed is on it unless a test says otherwise).
    ///   - appSection: an app section for breezed, e.g. "allowed=false".
    ///   - geoclue: start GeoClue (a test of the bus alone leaves it out).
    public init(whitelist: String = "breezed", appSection: String? = nil, geoclue startingGeoClue: Bool = true) async throws {
        folder = TemporaryPaths.make("geoclue")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        let socket = folder + "/system_bus_socket"
        busAddress = "unix:path=" + socket

        var configuration = try String(contentsOfFile: "/usr/share/dbus-1/system.conf", encoding: .utf8)
        for (pattern, replacement) in [
            ("<user>messagebus</user>", ""), ("<standard_system_servicedirs/>", ""),
            ("<servicehelper>[^<]*</servicehelper>", ""), ("<pidfile>[^<]*</pidfile>", ""),
            ("<listen>[^<]*</listen>", "<listen>\(busAddress)</listen>"),
            ("<includedir>system.d</includedir>", "<includedir>/usr/share/dbus-1/system.d</includedir>"),
            ("<include ignore_missing=\"yes\">[^<]*</include>", ""),
        ] {
            configuration = configuration.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        // One addition to the system policy: calls to the tests' own interface, so an exported object can be called.
        configuration = configuration.replacingOccurrences(
            of: "</busconfig>",
            with: "<policy context=\"default\"><allow send_interface=\"test.Object\"/></policy>\n</busconfig>")
        try configuration.write(toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        bus = try await ChildProcess.launch("/usr/bin/dbus-daemon", ["--config-file=\(folder)/bus.conf", "--nofork"])

        nmeaInput = Pipe()
        let ready = Pipe()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/nmea-socket.py").path
        nmea = try await ChildProcess.launch("/usr/bin/python3", [script, folder + "/nmea.sock"], output: ready, input: nmeaInput)
        _ = await onDedicatedThread { ready.fileHandleForReading.availableData }

        var geoclueConf = """
            [agent]
            whitelist=\(whitelist)
            [network-nmea]
            enable=true
            nmea-socket=\(folder)/nmea.sock
            [3g]
            enable=false
            [cdma]
            enable=false
            [modem-gps]
            enable=false
            [wifi]
            enable=true
            url=http://127.0.0.1:9/v1/geolocate?key=test
            submit-data=false
            [compass]
            enable=false

            """
        if let appSection { geoclueConf += "[breezed]\n\(appSection)\n" }
        try geoclueConf.write(toFile: folder + "/geoclue.conf", atomically: true, encoding: .utf8)
        chmod(folder + "/geoclue.conf", 0o644)

        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: socket) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        if startingGeoClue { try await startGeoClue() }
    }

    /// Starts GeoClue (again); it stays up while it has no clients (`--timeout=0`).
    public func startGeoClue() async throws {
        let command = "mount --bind \(folder)/geoclue.conf /etc/geoclue/geoclue.conf && exec setpriv --reuid=geoclue "
            + "--regid=geoclue --clear-groups /usr/libexec/geoclue --timeout=0"
        let errors = Pipe()
        let process = try await ChildProcess.launch("/usr/bin/unshare", ["-m", "/bin/sh", "-c", command], environment: [
            "DBUS_SYSTEM_BUS_ADDRESS": busAddress, "GSETTINGS_BACKEND": "memory", "GIO_USE_PROXY_RESOLVER": "dummy",
        ], errorOutput: errors)
        geoclue = process
        // Wait until it owns its name.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, process.isRunning {
            if try await hasOwner("org.freedesktop.GeoClue2") { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Ended before it owned its name: say why, rather than leave the tests to find "GeoClue is not running".
        guard !process.isRunning else { return }
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let hint = said.contains("propagation") ? " (in a chroot, bind the root onto itself first: unshare -m makes / private)" : ""
        throw RigError(description: "GeoClue did not start\(hint): \(said)")
    }

    public struct RigError: Error, CustomStringConvertible {
        public var description: String
    }

    public func killGeoClue() async {
        guard let geoclue else { return }
        kill(geoclue.processIdentifier, SIGKILL)
        while geoclue.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
    }

    public func signalGeoClue(_ signal: Int32) {
        if let geoclue { kill(geoclue.processIdentifier, signal) }
    }

    /// Sends fixes at a position from now on.
    public func fix(_ latitude: Double, _ longitude: Double) {
        nmeaInput.fileHandleForWriting.write(Data("fix \(latitude) \(longitude)\n".utf8))
    }

    /// Sends sentences without a fix from now on.
    public func noFix() {
        nmeaInput.fileHandleForWriting.write(Data("nofix\n".utf8))
    }

    /// Asks the bus, in process (starting a `dbus-send` every 50 ms would be a child process per question).
    private func hasOwner(_ name: String) async throws -> Bool {
        let bus = try await BusConnection.system(address: busAddress)
        defer { bus.close() }
        let reply = try await bus.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(name)],
            timeout: 5)
        return reply.first?.bool == true
    }

    /// A rig a test left running (it threw before `stop()`) is taken down: GeoClue, the NMEA feeder and the bus.
    deinit {
        if let geoclue, geoclue.isRunning {
            kill(geoclue.processIdentifier, SIGCONT)
            kill(geoclue.processIdentifier, SIGKILL)
        }
        if nmea.isRunning { nmea.terminate() }
        if bus.isRunning { bus.terminate() }
    }

    public func stop() async {
        if let geoclue, geoclue.isRunning {
            kill(geoclue.processIdentifier, SIGCONT)
            kill(geoclue.processIdentifier, SIGKILL)
        }
        nmea.terminate()
        bus.terminate()
        while bus.isRunning || nmea.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
