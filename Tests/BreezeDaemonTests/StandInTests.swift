import BreezeCore
import BreezeDaemon
import BreezePlaces
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What breezed shows while no source gives a position, end to end with a real gpsd: the place of the last fix
/// ("(no fix)", with its data), the fallback city, the place restored from an earlier run, the first saved city,
/// each labelled by `stand_in`; and `location on` asking gpsd at once.
@Suite(.serialized)
struct StandInTests {
    typealias Watcher = StatusBarEndToEndTests.Watcher

    static func location(_ daemon: BreezedProcess) async throws -> [String: Any] {
        object(try await daemon.ctl(["where", "--json"]).output)
    }

    /// A protocol timestamp ("2026-05-28T20:26:40.250Z") as seconds since 1970, to the second.
    static func seconds(_ timestamp: String) -> Double? {
        ISO8601DateFormatter().date(from: String(timestamp.prefix(19)) + "Z")?.timeIntervalSince1970
    }

    /// The time of gpsd's next try, as the last PERMISSION a watcher received tells it.
    static func nextTry(_ watcher: Watcher) -> Double? {
        let permissions = watcher.lines.map(object).filter { $0["class"] as? String == "PERMISSION" }
        return (permissions.last?["retry_at"] as? String).flatMap(seconds)
    }

    /// The drive ends in Frutigen; with a fallback city configured, Frutigen stays, as "(no fix)", with its data.
    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
    func aLogThatEndsLeavesItsOwnTownWithNoFixAndThatTownsData() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let folder = try BreezedProcess.makeFolder()
        try "[location]\nfix_timeout = 2s\nfallback_city = Bern\n"
            .write(toFile: folder + "/breezed.conf", atomically: true, encoding: .utf8)
        let port = GPSFake.freePort()
        let gpsd = try await GPSFake(log: DaemonEndToEndTests.drive, port: port, once: true, interval: 0.01)
        let daemon = try await BreezedProcess(folder: folder, [
            "--config", folder + "/breezed.conf", "--gpsd", "127.0.0.1:\(port)", "--no-geoclue",
            "--api-base", fixture.baseURL.absoluteString,
        ])
        let live = try await daemon.ctl(["where", "--json"], timeout: 60) {
            object($0.output)["source"] as? String == "gpsd" && object($0.output)["stand_in"] is NSNull
        }
        #expect(object(live.output)["mode"] as? Double != nil, "a live fix carries its mode: \(live.output)")
        let lost = try await daemon.ctl(["where", "--json"], timeout: 60) {
            object($0.output)["stand_in"] as? String == "last-fix"
        }
        let location = object(lost.output)
        #expect(location["city"] as? String == "Frutigen", "\(lost.output)")
        #expect(location["source"] as? String == "gpsd")
        #expect(location["time"] is String, "the time of the last fix: \(lost.output)")
        #expect(location["state"] as? String == "unavailable")
        // Its own data, not the fallback city's.
        let air = try await daemon.ctl(["air", "--json"], timeout: 30) { object($0.output)["state"] as? String == "fresh" }
        #expect(object(air.output)["place"] as? String == "Frutigen, Switzerland", "\(air.output)")
        let text = try await daemon.ctl(["where"])
        #expect(text.output.contains("Frutigen, Switzerland · no fix, last from gpsd"), "\(text.output)")
        #expect(text.output.contains("ago"), "the age of the last fix: \(text.output)")
        let bar = try await daemon.ctl(["watch", "--once", "--format", "{city} {stand_in}"])
        #expect(bar.output == "Frutigen last-fix\n", "\(bar.output)")
        let waybar = try await daemon.ctl(["watch", "--once", "--waybar"])
        #expect((object(waybar.output)["text"] as? String)?.hasSuffix("Frutigen (no fix)") == true, "\(waybar.output)")
        await daemon.stop()
        await gpsd.stop()
    }

    /// The state file names Sydney from an earlier run: it stands in ("restored") until gpsd names a place, and never
    /// comes back after, not even once the drive ends.
    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
    func aRestoredPlaceGivesWayToTheLiveFixAndNeverComesBack() async throws {
        let folder = try BreezedProcess.makeFolder()
        var state = UserState()
        state.lastPlace = try #require(DaemonEndToEndTests.citySearch.search("Sydney", limit: 1).first?.place)
        try StateStore(folder: folder + "/state").save(state)
        let port = GPSFake.freePort()
        let daemon = try await BreezedProcess(folder: folder, [
            "--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline",
            "--log-level", "info",
        ])
        let restored = try await Self.location(daemon)
        #expect(restored["city"] as? String == "Sydney", "\(restored)")
        #expect(restored["stand_in"] as? String == "restored")
        #expect(restored["source"] as? String == "manual")
        let watcher = try await Watcher.breezectl(["--socket", daemon.socket, "watch", "--json"])
        defer { watcher.stop() }
        #expect(await watcher.line { $0["class"] as? String == "LOCATION" } != nil)

        let gpsd = try await GPSFake(log: DaemonEndToEndTests.drive, port: port, once: true, interval: 0.01)
        let live = await watcher.line(timeout: 60) { $0["class"] as? String == "LOCATION" && $0["source"] as? String == "gpsd" }
        #expect(live != nil, "\(watcher.lines.suffix(5))")
        await gpsd.stop()
        // gpsd is gone: the place of the last fix stands in, not Sydney.
        let lastFix = await watcher.line(after: live?.0 ?? 0, timeout: 60) { $0["stand_in"] as? String == "last-fix" }
        #expect(lastFix != nil, "\(watcher.lines.suffix(5))")
        let after = watcher.lines.dropFirst((live?.0 ?? 0)).filter { $0.contains("\"LOCATION\"") }
        #expect(!after.contains { $0.contains("Sydney") }, "\(after)")
        await daemon.stop()
    }

    /// Before any fix: the fallback city, labelled; with none, `where` says what to do, and a saved city stands in
    /// once there is one.
    @Test func aFreshStateShowsTheFallbackCityOrSaysWhatToDo() async throws {
        let withCity = try await BreezedProcess([
            "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern",
        ])
        let bern = try await Self.location(withCity)
        #expect(bern["city"] as? String == "Bern")
        #expect(bern["stand_in"] as? String == "fallback")
        #expect(bern["source"] as? String == "manual")
        #expect(try await withCity.ctl(["where"]).output.hasPrefix("Bern, Switzerland · fallback city\n"))
        await withCity.stop()

        let without = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline"])
        let none = try await without.ctl(["where"])
        #expect(none.output.contains("No place yet: select a city ('breezectl select CITY')"), "\(none.output)")
        #expect(none.output.contains("fallback_city"), "\(none.output)")
        #expect(try await without.ctl(["saved", "add", "Oslo"]).status == 0)
        let oslo = try await without.ctl(["where", "--json"], timeout: 10) { object($0.output)["city"] as? String == "Oslo" }
        #expect(object(oslo.output)["stand_in"] as? String == "saved", "\(oslo.output)")
        #expect(try await without.ctl(["select", "Zurich"]).status == 0)
        #expect(try await Self.location(without)["stand_in"] as? String == "selected")
        await without.stop()
    }

    /// gpsd is down for 35 s, retried several times; `location on` asks at once, well before the next retry is due.
    /// Meanwhile the permission stays `unavailable`: no flapping between it and `requesting` on every retry.
    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
    func locationOnAsksGpsdAtOnceAndRetriesDoNotFlap() async throws {
        let port = GPSFake.freePort()
        let daemon = try await BreezedProcess([
            "--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline", "--fallback-city", "Bern",
        ])
        let watcher = try await Watcher.breezectl(["--socket", daemon.socket, "watch", "--json"])
        defer { watcher.stop() }
        let text = try await Watcher.breezectl(["--socket", daemon.socket, "watch"])
        defer { text.stop() }
        // Retries after 0.5, 1, 2, 4, 8, 16 and 30 s, each less up to half at random: six or more by 35 s.
        try await Task.sleep(for: .seconds(35))
        let permissions = watcher.lines.map(object).filter { $0["class"] as? String == "PERMISSION" }
        let states = permissions.compactMap { $0["state"] as? String }
        #expect(states.filter { $0 == "requesting" }.count <= 1, "\(states)")
        #expect(states.last == "unavailable", "\(states)")
        // Each failed retry says when the next is due; people see one line, and the log one notice, for all of them.
        let retries = permissions.compactMap { $0["retry_at"] as? String }
        #expect(Set(retries).count >= 4, "\(retries)")
        let textLines = text.lines.filter { $0.contains(" PERMISSION ") }
        #expect(textLines.count <= 3 && textLines.last?.contains("PERMISSION unavailable: gpsd is not running") == true, "\(textLines)")
        let notices = daemon.log().split(separator: "\n").filter { $0.contains(" permission state=unavailable") }
        #expect(notices.count == 1, "\(notices)")
        let shown = try await daemon.ctl(["where"])
        #expect(shown.output.contains("  Location: unavailable (retrying in "), "\(shown.output)")

        // "At once" is told from "at the next retry" only while that is well ahead: one due within 10 s is waited
        // out (the one after it is 15 s or more later).
        var nextTry = try #require(Self.nextTry(watcher), "\(permissions)")
        if nextTry - Date().timeIntervalSince1970 < 10 {
            try await Task.sleep(for: .seconds(max(0, nextTry - Date().timeIntervalSince1970) + 2))
            nextTry = try #require(Self.nextTry(watcher))
        }
        let gpsd = try await GPSFake(log: DaemonEndToEndTests.drive, port: port, once: false, interval: 0.02)
        #expect(await gpsd.waitUntilListening())
        #expect(try await daemon.ctl(["location", "on"]).status == 0)
        let live = try await daemon.ctl(["where", "--json"], timeout: 30) { object($0.output)["source"] as? String == "gpsd" }
        #expect(object(live.output)["source"] as? String == "gpsd")
        // To the second: retry_at carries milliseconds, `seconds` reads whole ones.
        #expect(Date().timeIntervalSince1970 < nextTry - 1, "asked at once, not at the retry due at \(nextTry)")
        await daemon.stop()
        await gpsd.stop()
    }

    /// Neither gpsd nor GeoClue (the default configuration on a machine with neither): both retry, and the state
    /// stays with gpsd's reason instead of taking turns with GeoClue's at every retry.
    @Test func twoSourcesDownDoNotTakeTurns() async throws {
        let folder = try BreezedProcess.makeFolder()
        let daemon = try await BreezedProcess(
            folder: folder, ["--gpsd", "127.0.0.1:\(GPSFake.freePort())", "--offline"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(folder)/no-bus"])
        let text = try await Watcher.breezectl(["--socket", daemon.socket, "watch"])
        defer { text.stop() }
        // gpsd is retried after 0.5, 1, 2, 4 and 8 s, GeoClue after 1, 2, 4 and 8 s (each less up to half).
        try await Task.sleep(for: .seconds(20))
        // Before gpsd's first answer, the start's states and GeoClue's reason may show; from gpsd's reason on, nothing
        // more, although both sources kept retrying.
        let lines = text.lines.filter { $0.contains(" PERMISSION ") }
        let fromGpsd = lines.drop { !$0.contains("PERMISSION unavailable: gpsd is not running") }
        #expect(fromGpsd.count == 1, "\(lines)")
        let notices = daemon.log().split(separator: "\n").filter { $0.contains(" permission state=") }
        let noticesFromGpsd = notices.drop { !$0.contains("gpsd is not running") }
        #expect(noticesFromGpsd.count == 1, "\(notices)")
        await daemon.stop()
    }

    /// breezed refuses to start when it could not save a change: its state folder cannot be made, or is not its to
    /// write; the message names the option and the service.
    @Test func anUnwritableStateFolderStopsTheStart() async throws {
        let folder = try BreezedProcess.makeFolder()
        try "".write(toFile: folder + "/file", atomically: true, encoding: .utf8)
        let daemon = try await BreezedProcess(
            folder: folder, ["--no-gpsd", "--no-geoclue", "--offline", "--state-dir", folder + "/file/state"],
            waitForSocket: false)
        #expect(await daemon.exitStatus() == 1)
        let log = daemon.log()
        #expect(log.contains("cannot make the folder \(folder)/file/state (--state-dir)"), "\(log)")
        #expect(log.contains("--socket, --state-dir and --cache-dir"), "\(log)")
        #expect(log.contains("systemctl start breezed.socket"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/breezed.sock"))

        guard getuid() == 0 else { return }
        // As nobody, a folder root owns: it exists, and may not be written.
        let owned = folder + "/owned"
        try FileManager.default.createDirectory(atPath: owned, withIntermediateDirectories: false)
        chmod(folder, 0o755)
        let asNobody = ChildProcess.resetSignalsAndExec.replacingOccurrences(
            of: "os.execv", with: "os.setgroups([]); os.setgid(65534); os.setuid(65534)\nos.execv")
        let refused = try await BreezedProcess(
            folder: folder, ["--no-gpsd", "--no-geoclue", "--offline", "--state-dir", owned],
            wrapper: asNobody, waitForSocket: false)
        #expect(await refused.exitStatus() == 1)
        #expect(refused.log().contains("cannot write in the folder \(owned) (--state-dir): Permission denied"), "\(refused.log())")
    }

    /// Log lines: for people (the time and the level's name) on a terminal or a file; with journald's priority
    /// prefixes when stderr is the journal's stream (`JOURNAL_STREAM` names it).
    @Test func logLinesAreForPeopleUnlessStderrIsTheJournal() async throws {
        let folder = try BreezedProcess.makeFolder()
        let config = folder + "/breezed.conf"
        try "[gpsd]\naddress=nowhere:port\n".write(toFile: config, atomically: true, encoding: .utf8)
        let plain = try await BreezedProcess(folder: folder, ["--config", config], waitForSocket: false)
        #expect(await plain.exitStatus() == 78)
        let line = plain.log()
        #expect(line.range(of: #"^[0-2][0-9]:[0-5][0-9]:[0-6][0-9] error: config\.invalid "#, options: .regularExpression) != nil, "\(line)")
        #expect(!line.contains("<3>"))

        let journal = ChildProcess.resetSignalsAndExec.replacingOccurrences(
            of: "os.execv",
            with: "st = os.fstat(2); os.environ['JOURNAL_STREAM'] = '%d:%d' % (st.st_dev, st.st_ino)\nos.execv")
        let underSystemd = try await BreezedProcess(folder: folder, ["--config", config], wrapper: journal, waitForSocket: false)
        #expect(await underSystemd.exitStatus() == 78)
        #expect(underSystemd.log().hasPrefix("<3>config.invalid "), "\(underSystemd.log())")

        // A JOURNAL_STREAM that is not stderr (inherited, stderr redirected since) is not the journal.
        let stale = try await BreezedProcess(
            folder: folder, ["--config", config], environment: ["JOURNAL_STREAM": "8:12345"], waitForSocket: false)
        #expect(await stale.exitStatus() == 78)
        #expect(!stale.log().contains("<3>"), "\(stale.log())")
    }
}
