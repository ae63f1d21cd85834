import BreezeDaemon
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The privacy switch and city-level positions, against a real gpsd replaying a drive.
@Suite(
    .serialized,
    .enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
struct PrivacyTests {
    /// After `location off`, nothing of the live position is shown: not by `where`, not by `status`, not to a
    /// watcher; the fallback city stands in, marked as such, or, with none, no place at all (not the last place
    /// named, which came from the position too).
    @Test(arguments: ["Oslo", nil])
    func switchingLocationOffHidesTheLivePosition(fallback: String?) async throws {
        let port = GPSFake.freePort()
        let gpsd = try await GPSFake(log: DaemonEndToEndTests.drive, port: port, once: false, interval: 0.02)
        let daemon = try await BreezedProcess(
            ["--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline"] + (fallback.map { ["--fallback-city", $0] } ?? []))
        let live = try await daemon.ctl(["where", "--json"], timeout: 60) { isLivePosition($0.output) }
        #expect(object(live.output)["source"] as? String == "gpsd", "\(live.output)")

        let off = try await daemon.ctl(["location", "off"])
        #expect(off.status == 0, "\(off.errors)")
        // At once, and for as long as the drive goes on: no gpsd position anywhere.
        for _ in 0..<5 {
            let shown = object(try await daemon.ctl(["where", "--json"]).output)
            #expect(shown["source"] as? String != "gpsd", "\(shown)")
            if let fallback {
                #expect(shown["city"] as? String == fallback, "\(shown)")
            } else {
                #expect(shown["class"] as? String == "LOCATION" && shown["name"] is NSNull, "\(shown)")
            }
            let status = try await daemon.ctl(["status", "--json"])
            #expect(!status.output.contains("\"source\":\"gpsd\""), "\(status.output)")
            #expect(!status.output.contains("Adelboden") && !status.output.contains("Frutigen"), "\(status.output)")
        }
        let watched = await onDedicatedThread { () -> [String] in
            guard let client = LineClient(path: daemon.socket, timeout: 2),
                client.send("{\"command\":\"watch\",\"classes\":[\"LOCATION\"],\"id\":1}")
            else { return [] }
            var lines: [String] = []
            while let line = client.line(), lines.count < 50 { lines.append(line) }
            return lines
        }
        #expect(watched.contains { $0.contains("\"class\":\"LOCATION\"") }, "\(watched)")
        #expect(!watched.contains { $0.contains("\"source\":\"gpsd\"") }, "\(watched)")

        let on = try await daemon.ctl(["location", "on"])
        #expect(on.status == 0)
        let back = try await daemon.ctl(["where", "--json"], timeout: 60) { isLivePosition($0.output) }
        #expect(object(back.output)["source"] as? String == "gpsd", "switching on again uses the live position")
        await daemon.stop()
        await gpsd.stop()
    }

    /// A peer outside the daemon's group gets the live position at city level, and nothing derived from it finer:
    /// distance and accuracy in whole kilometres, the time to the minute.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func anotherUserSeesEveryDerivedFieldAtCityLevel() async throws {
        let port = GPSFake.freePort()
        let gpsd = try await GPSFake(log: DaemonEndToEndTests.drive, port: port, once: false, interval: 0.02)
        // The group whose members see exact positions: "users" here ("breeze" under the unit).
        let folder = try BreezedProcess.makeFolder()
        try "[socket]\ngroup = users\n".write(toFile: folder + "/breezed.conf", atomically: true, encoding: .utf8)
        let daemon = try await BreezedProcess(
            folder: folder, ["--config", folder + "/breezed.conf", "--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline"])
        chmod(daemon.folder, 0o755)
        let exact = try await daemon.ctl(["where", "--json"], timeout: 60) { isLivePosition($0.output) }
        let precise = object(exact.output)
        #expect(precise["accuracy"] is Double, "the drive's fixes carry an accuracy: \(exact.output)")
        #expect(precise["precise"] as? Bool == true)
        #expect(precise["precise_hint"] == nil)

        let read = try await BreezedProcess.breezectl(["--socket", daemon.socket, "where", "--json"], asUser: "65534")
        #expect(read.status == 0, "\(read.errors)")
        let coarse = object(read.output)
        #expect(coarse["source"] as? String == "gpsd", "\(read.output) \(read.errors)")
        let latitude = try #require(coarse["latitude"] as? Double, "\(read.output)")
        let longitude = try #require(coarse["longitude"] as? Double)
        for degrees in [latitude, longitude] {
            #expect(abs(degrees * 100 - (degrees * 100).rounded()) < 1e-6, "rounded to 2 decimals: \(degrees)")
        }
        let distance = try #require(coarse["distance_m"] as? Double)
        #expect(distance.truncatingRemainder(dividingBy: 1_000) == 0, "distance in whole km: \(distance)")
        let accuracy = try #require(coarse["accuracy"] as? Double)
        #expect(accuracy >= 1_000 && accuracy.truncatingRemainder(dividingBy: 1_000) == 0, "accuracy: \(accuracy)")
        let time = try #require(coarse["time"] as? String)
        #expect(time.hasSuffix(":00.000Z"), "time to the minute: \(time)")
        // The fix's mode, but neither height nor motion.
        #expect(coarse["mode"] as? Double != nil, "\(read.output)")
        for key in ["altitude_m", "speed_mps", "heading_deg"] { #expect(coarse[key] is NSNull, "\(key): \(read.output)") }
        // Told so, with the group to join and how.
        #expect(coarse["precise"] as? Bool == false)
        let hint = try #require(coarse["precise_hint"] as? String, "\(read.output)")
        #expect(hint.contains("the group users") && hint.contains("sudo usermod -aG users $USER"), "\(hint)")
        let text = try await BreezedProcess.breezectl(["--socket", daemon.socket, "where"], asUser: "65534")
        #expect(text.output.contains("Positions are rounded to about 1 km for you: " + hint), "\(text.output)")
        #expect(text.output.contains("fix "), "the fix's details, coarse: \(text.output)")
        // A change is refused (77) with the same words.
        let refused = try await BreezedProcess.breezectl(["--socket", daemon.socket, "select", "Oslo"], asUser: "65534")
        #expect(refused.status == 77)
        #expect(refused.errors.contains("sudo usermod -aG users $USER"), "\(refused.errors)")
        await daemon.stop()
        await gpsd.stop()
    }
}

/// Whether breezectl printed a LOCATION from gpsd (`where --json` prints PERMISSION, which names its source too,
/// while there is no place yet).
private func isLivePosition(_ output: String) -> Bool {
    object(output)["class"] as? String == "LOCATION" && object(output)["source"] as? String == "gpsd"
}
