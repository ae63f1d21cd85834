import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The protocol's promises against the real daemon: the id on every ERROR, the checked arguments, `geoname_id` in
/// LOCATION and the documented subscriber.
@Suite
struct ProtocolContractTests {
    static let badLines: [(line: String, code: String)] = [
        (#"{"command":"fly","id":1}"#, "unknown-command"),
        (#"{"id":2}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":0,"id":3}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":-1,"id":4}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":51,"id":5}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":2.5,"id":6}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":"3","id":7}"#, "bad-argument"),
        (#"{"command":"watch","classes":["BOGUS"],"id":8}"#, "bad-argument"),
        (#"{"command":"watch","classes":[],"id":9}"#, "bad-argument"),
        (#"{"command":"refresh","wait":"yes","id":10}"#, "bad-argument"),
        (#"{"command":"look","id":11}"#, "bad-argument"),
        (#"{"command":"look","query":"Paris","classes":["LOCATION"],"id":12}"#, "bad-argument"),
        (#"{"command":"look","city":0,"id":13}"#, "bad-argument"),
        (#"{"command":"look","query":"xqzvwkj","id":14}"#, "not-found"),
    ]

    @Test func everyErrorCarriesTheIdOfItsLineAndLimitIsChecked() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let socket = daemon.socket
        let (version, replies, limited, most) = await onDedicatedThread { () -> (String?, [String?], String?, String?) in
            guard let client = LineClient(path: socket) else { return (nil, [], nil, nil) }
            let version = client.line()
            let replies = Self.badLines.enumerated().map { index, request in
                client.send(request.line) ? client.reply(id: index + 1) : nil
            }
            let limited = client.send(#"{"command":"search","query":"San","limit":3,"id":100}"#)
                ? client.reply(id: 100) : nil
            let most = client.send(#"{"command":"search","query":"San","limit":50,"id":101}"#)
                ? client.reply(id: 101) : nil
            return (version, replies, limited, most)
        }
        #expect(object(version ?? "")["proto_minor"] as? Int == 12, "\(version ?? "no VERSION")")
        #expect(replies.count == Self.badLines.count)
        for (index, (reply, request)) in zip(replies, Self.badLines).enumerated() {
            let message = object(reply ?? "")
            #expect(message["class"] as? String == "ERROR", "\(request.line) -> \(reply ?? "no reply")")
            #expect(message["code"] as? String == request.code, "\(request.line) -> \(reply ?? "no reply")")
            #expect(message["id"] as? Int == index + 1, "\(request.line) -> \(reply ?? "no reply")")
        }
        #expect((object(limited ?? "")["places"] as? [Any])?.count == 3, "\(limited ?? "no reply")")
        let mostCount = (object(most ?? "")["places"] as? [Any])?.count ?? 0
        #expect(mostCount > 3 && mostCount <= 50, "\(most ?? "no reply")")
        await daemon.stop()
    }

    @Test func locationCarriesTheGeoNamesIdOfItsPlace() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let bern = try await daemon.ctl(["where", "--json"], timeout: 20) { object($0.output)["city"] as? String == "Bern" }
        #expect(object(bern.output)["geoname_id"] as? Int == 2661552, "\(bern.output)")
        #expect(object(bern.output)["name"] as? String == "Bern, Switzerland", "every earlier field stays")
        let zurich = try await daemon.ctl(["select", "2657896", "--json"])
        #expect(object(zurich.output)["geoname_id"] as? Int == 2657896, "\(zurich.output)")
        #expect(object(zurich.output)["source"] as? String == "manual")
        await daemon.stop()
    }

    /// docs/subscribe.py against breezed: a line per place the daemon names, and none for the same place again.
    @Test func theDocumentedSubscriberPrintsEachPlaceTheDaemonNames() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        _ = try await daemon.ctl(["where", "--json"], timeout: 20) { object($0.output)["city"] as? String == "Bern" }
        let output = Pipe()
        let printed = EventRecorder<String>()
        output.fileHandleForReading.readabilityHandler = { handle in
            printed.append(String(decoding: handle.availableData, as: UTF8.self))
        }
        let process = try await ChildProcess.launch(
            "/usr/bin/python3", [BreezedProcess.root + "/docs/subscribe.py", daemon.socket], output: output)
        defer { if process.isRunning { process.terminate() } }
        func text() -> String { printed.all.joined() }

        #expect(await printed.wait(timeout: 10) { _ in text().contains("Bern") })
        #expect(try await daemon.ctl(["select", "Zurich"]).status == 0)
        #expect(await printed.wait(timeout: 10) { _ in text().contains("Zürich") })
        #expect(try await daemon.ctl(["select", "Zurich"]).status == 0)
        #expect(try await daemon.ctl(["here"]).status == 0)
        #expect(await printed.wait(timeout: 10) { _ in text().hasSuffix("Zürich, Switzerland\nBern, Switzerland\n") })
        output.fileHandleForReading.readabilityHandler = nil
        #expect(text() == "Bern, Switzerland\nZürich, Switzerland\nBern, Switzerland\n")
        process.terminate()
        await daemon.stop()
    }
}
