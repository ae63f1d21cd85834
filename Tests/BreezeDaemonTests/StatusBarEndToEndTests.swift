import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `breezectl watch` as a status bar runs it, against the real daemon: each state's class, a daemon restart under
/// a running `watch --waybar`, `--once`, a lost gpsd, and the README's Waybar and i3status-rust snippets run as
/// written.
@Suite(.serialized)
struct StatusBarEndToEndTests {
    /// A `breezectl` (or a shell running one) left running, its lines read as they come.
    final class Watcher: Sendable {
        let process: ChildProcess
        private let output = CollectedOutput()

        init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws {
            let pipe = Pipe()
            process = try await ChildProcess.launch(
                executable, arguments, environment: environment.merging(["NO_COLOR": "1"]) { a, _ in a }, output: pipe)
            output.collect(from: pipe.fileHandleForReading)
        }

        static func breezectl(_ arguments: [String]) async throws -> Watcher {
            try await Watcher(BreezedProcess.breezectl, arguments)
        }

        var lines: [String] { output.soFar().split(separator: "\n").map(String.init) }

        /// Waits (at most `timeout` seconds) for a line after the first `skip` that `accept` takes; returns its
        /// index and its JSON object.
        func line(after skip: Int = 0, timeout: Double = 30, where accept: ([String: Any]) -> Bool) async -> (Int, [String: Any])? {
            var found: (Int, [String: Any])?
            await eventually(timeout: timeout) {
                for (index, line) in lines.enumerated().dropFirst(skip) {
                    let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
                    if accept(object) {
                        found = (index, object)
                        return true
                    }
                }
                return false
            }
            return found
        }

        /// Stops it and everything it started (its process group).
        func stop() {
            kill(-process.processIdentifier, SIGTERM)
            _ = process.waitUntilExit(timeout: 10)
        }
    }

    static func classes(_ object: [String: Any]) -> [String] { object["class"] as? [String] ?? [] }

    @Test func watchOutlivesADaemonRestartAndWaitsForOneNotYetStarted() async throws {
        let folder = try BreezedProcess.makeFolder()
        let socket = folder + "/breezed.sock"
        let watcher = try await Watcher.breezectl(["--socket", socket, "watch", "--waybar"])
        defer { watcher.stop() }
        // Without --waybar too: a text line says breezed is unavailable, and the objects come again after.
        let plain = try await Watcher.breezectl(["--socket", socket, "watch"])
        defer { plain.stop() }
        let json = try await Watcher.breezectl(["--socket", socket, "watch", "--json"])
        defer { json.stop() }
        // No daemon yet: the bar says so, and watch waits.
        let waiting = await watcher.line { Self.classes($0) == ["unavailable"] }
        #expect(waiting?.1["text"] as? String == "breezed unavailable", "\(watcher.lines)")
        #expect((waiting?.1["tooltip"] as? String)?.contains("cannot reach breezed") == true, "\(watcher.lines)")
        #expect(watcher.process.isRunning)

        let arguments = ["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"]
        let first = try await BreezedProcess(folder: folder, arguments)
        let up = await watcher.line(after: (waiting?.0 ?? 0) + 1) { ($0["text"] as? String) == "Bern (fallback city)" }
        #expect(up.map { Self.classes($0.1) } == ["offline"], "\(watcher.lines)")
        let bern = "LOCATION Bern, Switzerland (fallback city)"
        #expect(await eventually(timeout: 30) { plain.lines.contains { $0.contains(bern) } }, "\(plain.lines)")

        await first.stop()
        let down = await watcher.line(after: (up?.0 ?? 0) + 1) { Self.classes($0) == ["unavailable"] }
        #expect(down != nil, "\(watcher.lines)")
        #expect(watcher.process.isRunning, "watch does not exit when breezed stops")

        let second = try await BreezedProcess(folder: folder, arguments)
        let back = await watcher.line(after: (down?.0 ?? 0) + 1) { ($0["text"] as? String) == "Bern (fallback city)" }
        #expect(back.map { Self.classes($0.1) } == ["offline"], "\(watcher.lines)")
        #expect(watcher.process.isRunning)

        var stopping: Int?
        await eventually(timeout: 30) {
            stopping = plain.lines.firstIndex { $0.contains("BREEZED unavailable: breezed is stopping") }
            return stopping != nil
        }
        #expect(stopping != nil, "\(plain.lines)")
        #expect(await eventually(timeout: 30) {
            plain.lines.dropFirst((stopping ?? plain.lines.count) + 1).contains { $0.contains(bern) }
        }, "\(plain.lines)")
        #expect(plain.process.isRunning)

        // With --json, an object of breezectl's own says so, among the daemon's.
        let outage = await json.line { $0["class"] as? String == "DAEMON" }
        #expect(outage?.1["state"] as? String == "unavailable", "\(json.lines)")
        #expect(outage?.1["reason"] is String, "\(json.lines)")
        #expect(await json.line(after: (outage?.0 ?? 0) + 1) { $0["class"] as? String == "LOCATION" } != nil, "\(json.lines)")
        await second.stop()
    }

    @Test func watchOncePrintsOneLineAndExits() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let result = try await daemon.ctl(["watch", "--once", "--waybar"], timeout: 20) {
            object($0.output)["text"] as? String == "Bern"
        }
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
        #expect(object(result.output)["class"] as? [String] == ["offline"], "\(result.output)")
        let formatted = try await daemon.ctl(["watch", "--once", "--format", "{city} {country_code}"])
        #expect(formatted.output == "Bern CH\n", "\(formatted.output)")
        await daemon.stop()

        let gone = try await BreezedProcess.breezectl(["--socket", daemon.socket, "watch", "--once", "--waybar"])
        #expect(gone.status == 69)
        #expect(object(gone.output)["class"] as? [String] == ["unavailable"], "\(gone.output)")
    }

    @Test func anUnknownTokenExits64BeforeConnecting() async throws {
        let result = try await BreezedProcess.breezectl(["--socket", "/nonexistent/breezed.sock", "watch", "--format", "{aqi} {nope}"])
        #expect(result.status == 64)
        #expect(result.errors.contains("unknown token {nope}"), "\(result.errors)")
        #expect(result.output.isEmpty)
    }

    @Test func withNoPlaceTheClassIsNoPlace() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline"])
        let result = try await daemon.ctl(["watch", "--once", "--waybar"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(object(result.output)["class"] as? [String] == ["no-place"], "\(result.output)")
        #expect((object(result.output)["tooltip"] as? String)?.hasPrefix("No place yet") == true)
        await daemon.stop()
    }

    /// HTTP 500s from the start: `failed`, with the reason. The API back: the category alone. 500s again and a
    /// refresh: `stale` before the category, the data kept, the reason and age in the tooltip.
    @Test func failedFreshAndStaleEachHaveTheirClass() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        try await fixture.fault("500", path: "/v1/air-quality", match: "us_aqi", count: 1_000, reason: "Internal Server Error")
        let daemon = try await BreezedProcess([
            "--no-gpsd", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString, "--fallback-city", "Bern",
        ])
        let bar = ["watch", "--once", "--waybar"]
        let failed = object(try await daemon.ctl(bar) { Self.classes(object($0.output)) == ["failed"] }.output)
        #expect(Self.classes(failed) == ["failed"], "\(failed)")
        #expect(failed["text"] as? String == "Bern (fallback city)")
        #expect(failed["percentage"] == nil)
        #expect((failed["tooltip"] as? String)?.contains("Air quality (failed: server-error: HTTP 500") == true, "\(failed)")

        try await fixture.reset()
        let fresh = object(try await daemon.ctl(bar) { Self.classes(object($0.output)) == ["good"] }.output)
        #expect(Self.classes(fresh) == ["good"], "\(fresh)")
        #expect(fresh["alt"] as? String == "good")
        #expect(fresh["percentage"] as? Int == 5, "AQI 26 of 500: \(fresh)")
        #expect((fresh["text"] as? String)?.hasSuffix(" 26 Bern (fallback city)") == true, "\(fresh)")

        try await fixture.fault("500", path: "/v1/air-quality", match: "us_aqi", count: 1_000, reason: "Internal Server Error")
        _ = try await daemon.ctl(["refresh"])
        // A refresh that fails leaves fresh data fresh (the bar is not dimmed), with the failure in the tooltip.
        let kept = object(try await daemon.ctl(bar) {
            (object($0.output)["tooltip"] as? String)?.contains("last refresh failed") == true
        }.output)
        #expect(Self.classes(kept) == ["good"], "\(kept)")
        let tooltip = kept["tooltip"] as? String ?? ""
        #expect(tooltip.contains("AQI 26 Good (fresh, ") && tooltip.contains("; last refresh failed: server-error: HTTP 500"), "\(tooltip)")
        // The object says when the next try is due (a time the bar counts down to while it is ahead).
        let air = object(try await daemon.ctl(["--json", "air"]).output)
        #expect((air["last_failure"] as? String)?.hasPrefix("server-error: HTTP 500") == true, "\(air)")
        #expect((air["retry_at"] as? String)?.hasSuffix("Z") == true, "\(air)")
        await daemon.stop()
    }

    /// gpsd goes away with the replay: the fallback city stands in, and the bar says the fix is lost.
    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
    func aLostGPSDIsSaidInTextAndClass() async throws {
        let port = GPSFake.freePort()
        let gpsd = try await GPSFake(log: DaemonEndToEndTests.drive, port: port, once: true, interval: 0.02)
        let daemon = try await BreezedProcess([
            "--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline", "--fallback-city", "Bern",
        ])
        let watcher = try await Watcher.breezectl(["--socket", daemon.socket, "watch", "--waybar"])
        defer { watcher.stop() }
        let live = await watcher.line(timeout: 60) {
            ($0["tooltip"] as? String)?.contains("· gpsd") == true && !Self.classes($0).contains("no-fix")
        }
        #expect(live != nil, "\(watcher.lines)")
        let lost = await watcher.line(after: (live?.0 ?? 0) + 1, timeout: 60) { Self.classes($0).first == "no-fix" }
        #expect(lost.map { Self.classes($0.1) } == ["no-fix", "offline"], "\(watcher.lines)")
        #expect((lost?.1["text"] as? String)?.hasSuffix("(no fix)") == true, "\(watcher.lines)")
        #expect((lost?.1["tooltip"] as? String)?.contains("No fix: ") == true, "\(watcher.lines)")
        watcher.stop()
        await daemon.stop()
        await gpsd.stop()
    }

    // MARK: The README's snippets, as written

    static func readme() throws -> String {
        try String(contentsOfFile: BreezedProcess.root + "/README.md", encoding: .utf8)
    }

    /// The first fenced block of `language` in the README that contains `marker`.
    static func snippet(_ language: String, containing marker: String) throws -> String {
        let blocks = try readme().components(separatedBy: "```").enumerated()
            .filter { $0.offset % 2 == 1 }.map(\.element)
        let block = try #require(blocks.first { $0.hasPrefix(language + "\n") && $0.contains(marker) }, "no \(language) block with \(marker)")
        return String(block.dropFirst(language.count + 1))
    }

    /// Runs a snippet's command line as the bar would (through the shell, breezectl on the PATH), against a daemon
    /// found through BREEZE_SOCKET; returns its first line's JSON object.
    static func run(_ command: String, _ daemon: BreezedProcess) async throws -> [String: Any]? {
        let folder = try #require(BreezedProcess.binFolder)
        let path = folder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let watcher = try await Watcher("/bin/sh", ["-c", command], environment: ["PATH": path, "BREEZE_SOCKET": daemon.socket])
        defer { watcher.stop() }
        return await watcher.line(timeout: 20) { ($0["text"] as? String)?.contains("Bern") == true }?.1
    }

    @Test func theReadmesWaybarModuleRunsAsWritten() async throws {
        let text = try Self.snippet("json", containing: "\"custom/breeze\"")
        let module = try #require(
            (try JSONSerialization.jsonObject(with: Data(("{" + text + "}").utf8)) as? [String: Any])?["custom/breeze"] as? [String: Any],
            "the snippet is one JSON member: \(text)")
        #expect(module["return-type"] as? String == "json")
        #expect((module["restart-interval"] as? Double).map { $0 > 0 } == true, "\(module)")
        let exec = try #require(module["exec"] as? String)
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let line = try await Self.run(exec, daemon)
        #expect(line?["text"] as? String == "Bern (fallback city)", "\(String(describing: line))")
        #expect(line.map { Self.classes($0) } == ["offline"])
        #expect(line?["alt"] as? String == "offline")
        #expect((line?["tooltip"] as? String)?.hasPrefix("Bern, Switzerland") == true)
        await daemon.stop()
    }

    @Test func theReadmesI3statusRustBlockRunsAsWritten() async throws {
        let text = try Self.snippet("toml", containing: "block = \"custom\"")
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where line.contains(" = ") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            settings[parts[0]] = parts[1]
        }
        #expect(settings["json"] == "true" && settings["persistent"] == "true", "\(settings)")
        let quoted = try #require(settings["command"], "\(settings)")
        let command = try #require(try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed) as? String)
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let line = try await Self.run(command, daemon)
        #expect(line.map { Set($0.keys) } == ["text", "state"], "\(String(describing: line))")
        #expect(line?["state"] as? String == "Warning", "offline data: \(String(describing: line))")
        await daemon.stop()
    }
}
