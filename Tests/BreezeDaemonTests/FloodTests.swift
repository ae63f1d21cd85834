import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// breezed against a gpsd that floods it with far-apart positions (Tests/Fixtures/gpsd-flood.py).
@Suite(.serialized)
struct FloodTests {
    static let script = BreezedProcess.root + "/Tests/Fixtures/gpsd-flood.py"

    /// Every report names a new place, thousands a second: subscribers get at most four LOCATIONs a second, and the
    /// daemon keeps answering.
    @Test func aFloodOfPlacesIsPacedToAFewLocationsASecond() async throws {
        let output = Pipe()
        let gpsd = try await ChildProcess.launch("/usr/bin/python3", [Self.script, "30"], output: output)
        defer { if gpsd.isRunning { kill(gpsd.processIdentifier, SIGKILL) } }
        let handle = output.fileHandleForReading
        let portLine = await onDedicatedThread { () -> String in
            var bytes: [UInt8] = []
            while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != 10 { bytes.append(first) }
            return String(decoding: bytes, as: UTF8.self)
        }
        let port = try #require(Int(portLine), "the flood fixture did not start: \(portLine)")
        let daemon = try await BreezedProcess(["--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline"])
        let socket = daemon.socket
        // Count the LOCATIONs a watcher receives over three seconds once the flood is named.
        let window = 3.0
        let counted = await onDedicatedThread { () -> (locations: Int, places: Set<String>)? in
            guard let client = LineClient(path: socket, timeout: 10),
                client.send(#"{"command":"watch","classes":["LOCATION"],"id":1}"#), client.reply(id: 1) != nil
            else { return nil }
            var started: ContinuousClock.Instant?
            var locations = 0
            var places: Set<String> = []
            while let line = client.line() {
                guard line.contains("\"class\":\"LOCATION\""), line.contains("\"source\":\"gpsd\"") else { continue }
                let now = ContinuousClock.now
                guard let start = started else {
                    started = now
                    continue
                }
                if now - start > .milliseconds(Int(window * 1000)) { break }
                locations += 1
                if line.contains("Sydney") { places.insert("Sydney") }
                if line.contains("London") { places.insert("London") }
            }
            return (locations, places)
        }
        let result = try #require(counted, "a watcher connects and sees the flood named")
        print("gpsd flood: \(result.locations) LOCATIONs in \(window) s")
        #expect(result.locations <= Int(window * 4) + 1, "\(result.locations) LOCATIONs in \(window) s")
        #expect(result.places == ["Sydney", "London"], "the newest places still come through: \(result.places)")
        let status = try await daemon.ctl(["status", "--json"])
        #expect(status.status == 0, "the daemon answers during the flood: \(status.errors)")
        await daemon.stop()
        #expect(await daemon.exitStatus() == 0)
    }
}
