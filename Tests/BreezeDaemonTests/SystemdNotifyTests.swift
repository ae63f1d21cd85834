import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What breezed tells systemd through NOTIFY_SOCKET, as systemd would receive it.
@Suite
struct SystemdNotifyTests {
    @Test func readyStatusWatchdogAndStopping() async throws {
        let folder = try BreezedProcess.makeFolder()
        let notify = NotifySocket(folder: folder)
        let daemon = try await BreezedProcess(
            folder: folder, ["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"],
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"])
        let started = await notify.receive(timeout: 10) { messages in
            messages.contains("READY=1") && messages.contains { $0.hasPrefix("STATUS=Bern, Switzerland") }
                && messages.filter { $0 == "WATCHDOG=1" }.count >= 2
        }
        #expect(started.contains("READY=1"), "\(started)")
        #expect(started.contains { $0 == "STATUS=Bern, Switzerland · fallback city" }, "\(started)")
        #expect(started.filter { $0 == "WATCHDOG=1" }.count >= 2, "a watchdog ping every 0.2 s: \(started)")
        daemon.signal(SIGTERM)
        let stopping = await notify.receive(timeout: 10) { $0.contains("STOPPING=1") }
        #expect(stopping.contains("STOPPING=1"))
        #expect(await daemon.exitStatus() == 0)
    }

    /// A stop is never lost however early it comes. Sent the moment READY=1 arrives, breezed stops cleanly; sent
    /// while it starts, it ends (cleanly, or by the signal's default action before its handler is in place). With
    /// signals ignored until a Dispatch source took them, about one stop in eight right after READY=1 was dropped and
    /// breezed ran on.
    @Test func aStopRightAfterStartIsNeverLost() async throws {
        var lost: [String] = []
        for round in 0..<40 {
            let folder = try BreezedProcess.makeFolder()
            let notify = NotifySocket(folder: folder)
            let daemon = try await BreezedProcess(
                folder: folder, ["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"],
                environment: ["NOTIFY_SOCKET": notify.path], waitForSocket: false)
            let atReady = round % 2 == 0
            if atReady {
                let started = await notify.receive(timeout: 10) { $0.contains("READY=1") }
                #expect(started.contains("READY=1"))
            }
            daemon.signal(SIGTERM)
            let status = await daemon.exitStatus(timeout: 5)
            if status == nil { lost.append("round \(round), \(atReady ? "at READY=1" : "while starting")") }
            if atReady, let status { #expect(status == 0, "a stop after READY=1 is a clean one: \(daemon.log())") }
            await daemon.stop()
        }
        #expect(lost.isEmpty, "SIGTERM did not end breezed within 5 s: \(lost)")
    }

    /// The MQTT link's state ends the status line: a broker down is shown with its reason, then connected.
    @Test func statusShowsTheMQTTLink() async throws {
        let folder = try BreezedProcess.makeFolder()
        let notify = NotifySocket(folder: folder)
        let port = Mosquitto.freePort()
        let daemon = try await BreezedProcess(
            folder: folder,
            ["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern", "--mqtt", "mqtt://127.0.0.1:\(port)"],
            environment: ["NOTIFY_SOCKET": notify.path])
        let down = await notify.receive(timeout: 10) {
            $0.contains { $0.hasPrefix("STATUS=Bern, Switzerland · fallback city · MQTT broker unreachable: ") }
        }
        #expect(down.contains { $0.hasPrefix("STATUS=Bern, Switzerland · fallback city · MQTT broker unreachable: ") }, "\(down)")
        let broker = try await Mosquitto(port: port)
        let up = await notify.receive(timeout: 45) { $0.contains("STATUS=Bern, Switzerland · fallback city · MQTT connected") }
        #expect(up.contains("STATUS=Bern, Switzerland · fallback city · MQTT connected"), "\(up)")
        await daemon.stop()
        await broker.stop()
    }

    /// A service manager that reads nothing (its queue holds ten datagrams here) must not stall the daemon: every
    /// city change changes STATUS, and each still gets its answer.
    @Test func aNotifySocketNobodyReadsNeverStallsTheDaemon() async throws {
        let folder = try BreezedProcess.makeFolder()
        let notify = NotifySocket(folder: folder)
        let daemon = try await BreezedProcess(
            folder: folder, ["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"],
            environment: ["NOTIFY_SOCKET": notify.path])
        let socket = daemon.socket
        let answered = await onDedicatedThread { () -> Int in
            guard let client = LineClient(path: socket, timeout: 5) else { return 0 }
            let cities = ["Oslo", "Paris", "Rome", "Lisbon"]
            var count = 0
            for step in 0..<60 {
                guard client.send("{\"command\":\"select\",\"query\":\"\(cities[step % 4])\",\"id\":\(step + 1)}"),
                    client.reply(id: step + 1) != nil
                else { break }
                count += 1
            }
            return count
        }
        #expect(answered == 60)
        let location = try await daemon.ctl(["where", "--json"])
        #expect(object(location.output)["city"] as? String == "Lisbon")
        await daemon.stop()
        #expect(daemon.process.terminationStatus == 0)
        _ = notify
    }
}
