import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// libcurl is loaded at the first fetch, not at start: an offline daemon never loads it, and a daemon that cannot
/// load it runs on, its datasets failed with the reason.
@Suite(.serialized) struct WebLibraryTests {
    struct NoMaps: Error {}

    /// Whether `pid` has libcurl mapped. (/proc files report no size: read to the end, not by the size.)
    private func mapsLibcurl(_ pid: Int32) throws -> Bool {
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/maps") else { throw NoMaps() }
        defer { try? file.close() }
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        guard maps.contains("/breezed") else { throw NoMaps() }
        return maps.contains("/libcurl.so")
    }

    @Test func anOfflineDaemonNeverLoadsLibcurlAndAnOnlineOneLoadsItToFetch() async throws {
        let offline = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let air = try await offline.ctl(["air", "--json"], timeout: 30) { object($0.output)["state"] != nil }
        #expect(object(air.output)["state"] as? String == "offline", "\(air.output)")
        // Asked to refresh, it still fetches nothing.
        _ = try await offline.ctl(["refresh"])
        #expect(try !mapsLibcurl(offline.process.processIdentifier))
        await offline.stop()

        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let online = try await BreezedProcess([
            "--no-gpsd", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString, "--fallback-city", "Bern",
        ])
        let fetched = try await online.ctl(["air", "--json"], timeout: 30) {
            object($0.output)["state"] as? String == "fresh"
        }
        #expect(object(fetched.output)["us_aqi"] as? Double == 26, "\(fetched.output)")
        #expect(try mapsLibcurl(online.process.processIdentifier))
        await online.stop()
    }

    @Test func withoutALoadableLibcurlTheDatasetsFailWithTheReasonAndTheDaemonRunsOn() async throws {
        // A libcurl.so.4 that is not a library, found first on the search path.
        let folder = try BreezedProcess.makeFolder()
        let libraries = folder + "/lib"
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: libraries + "/libcurl.so.4"))
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let daemon = try await BreezedProcess(
            folder: folder,
            ["--no-gpsd", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString, "--fallback-city", "Bern"],
            environment: ["LD_LIBRARY_PATH": libraries])
        let air = try await daemon.ctl(["air", "--json"], timeout: 30) {
            object($0.output)["state"] as? String == "failed"
        }
        let reason = object(air.output)["reason"] as? String ?? ""
        #expect(reason.contains("cannot load libcurl.so.4"), "\(air.output)")
        #expect(reason.contains("file too short"), "\(air.output)")
        #expect(daemon.process.isRunning)
        let location = try await daemon.ctl(["where", "--json"])
        #expect(object(location.output)["city"] as? String == "Bern", "\(location.output)")
        #expect(try !mapsLibcurl(daemon.process.processIdentifier))
        await daemon.stop()
    }
}
