import BreezeDaemon
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// breezed against what a hostile local user, or an unlucky state folder, does to it.
@Suite(.serialized)
struct HostileRequestTests {
    /// Each of these killed the daemon once (a trapping integer conversion): now each is an ERROR naming the field.
    static let numbersOutOfRange: [(line: String, code: String)] = [
        (#"{"command":"search","query":"pa","limit":1e19,"id":1}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":-1e300,"id":2}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":2.5,"id":3}"#, "bad-argument"),
        (#"{"command":"select","city":1e30,"id":4}"#, "bad-argument"),
        (#"{"command":"saved","action":"add","city":-1e30,"id":5}"#, "bad-argument"),
        (#"{"command":"saved","action":"remove","city":1e30,"id":6}"#, "bad-argument"),
        (#"{"command":"saved","action":"remove","city":9.5,"id":7}"#, "bad-argument"),
        (#"{"command":"lookup","latitude":1e308,"longitude":-1e308,"id":8}"#, "bad-argument"),
        (#"{"command":"select","city":"2657896","id":9}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":0,"id":10}"#, "bad-argument"),
        (#"{"command":"search","query":"pa","limit":51,"id":11}"#, "bad-argument"),
    ]

    @Test func numbersOutOfRangeAreErrorsNamingTheFieldAndTheDaemonLives() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let socket = daemon.socket
        let replies = await onDedicatedThread { () -> [String?] in
            guard let client = LineClient(path: socket) else { return [] }
            return Self.numbersOutOfRange.enumerated().map { index, request in
                client.send(request.line) ? client.reply(id: index + 1) : nil
            }
        }
        #expect(replies.count == Self.numbersOutOfRange.count)
        for (reply, request) in zip(replies, Self.numbersOutOfRange) {
            let message = object(reply ?? "")
            #expect(message["class"] as? String == "ERROR", "\(request.line) -> \(reply ?? "no reply")")
            #expect(message["code"] as? String == request.code, "\(request.line) -> \(reply ?? "no reply")")
        }
        #expect(daemon.process.isRunning)
        let version = try await daemon.ctl(["--json", "where"])
        #expect(version.status == 0, "the daemon still answers: \(version.errors)")
        await daemon.stop()
        #expect(await daemon.exitStatus() == 0)
    }

    /// A change the daemon could not save is refused, and leaves no trace: not in what it shows, and not in the next
    /// change it does save.
    @Test func aChangeThatCouldNotBeSavedLeavesNoTrace() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        #expect(try await daemon.ctl(["saved", "add", "Oslo"]).status == 0)
        // A folder where state.json should be: the rename that saves the state fails, even for root.
        let path = daemon.folder + "/state/state.json"
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let refused = try await daemon.ctl(["select", "Zurich"])
        #expect(refused.status != 0, "a change that was not saved is not acknowledged")
        let added = try await daemon.ctl(["saved", "add", "Lisbon"])
        #expect(added.status != 0)
        let location = object(try await daemon.ctl(["where", "--json"]).output)
        #expect(location["city"] as? String == "Bern", "the refused selection is not shown: \(location)")

        try FileManager.default.removeItem(atPath: path)
        #expect(try await daemon.ctl(["saved", "add", "Paris"]).status == 0)
        await daemon.stop()
        let saved = StateStore(folder: daemon.folder + "/state").load().state
        #expect(saved.selected == nil, "the refused selection was not written by a later save")
        #expect(saved.saved.map(\.name) == ["Oslo", "Paris"])
    }

    /// A second daemon started on a socket another one answers on leaves it alone: it says why and exits non-zero,
    /// and the first goes on serving at the same path.
    @Test func aSecondDaemonOnTheSameSocketLeavesTheFirstAlone() async throws {
        let first = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let second = try await BreezedProcess(
            folder: first.folder, ["--no-gpsd", "--no-geoclue", "--offline"], waitForSocket: false)
        let status = await second.exitStatus(timeout: 20)
        #expect(status != nil && status != 0, "the second daemon stops: \(String(describing: status))")
        await second.stop()  // its log can be read only once it has ended
        #expect(second.log().contains("another breezed is listening on \(first.socket)"), "\(second.log())")
        #expect(FileManager.default.fileExists(atPath: first.socket))
        let shown = try await first.ctl(["where", "--json"], timeout: 20) { object($0.output)["city"] != nil }
        #expect(shown.status == 0, "the first still answers: \(shown.errors)")
        #expect(object(shown.output)["city"] as? String == "Bern")
        await first.stop()
        #expect(!FileManager.default.fileExists(atPath: first.socket), "the first removes its own socket")
    }

    /// At the client limit, a command gets the daemon's reason, not a lost connection: breezectl exits 69 saying
    /// the daemon is full.
    @Test func atTheClientLimitBreezectlSaysWhy() async throws {
        let folder = try BreezedProcess.makeFolder()
        let config = folder + "/breezed.conf"
        try "[socket]\nmax_clients=2\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await BreezedProcess(
            folder: folder, ["--config", config, "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let socket = daemon.socket
        let holders = await onDedicatedThread { () -> [LineClient] in
            (0..<2).compactMap { _ in
                guard let client = LineClient(path: socket), client.send(#"{"command":"version","id":1}"#),
                    client.reply(id: 1) != nil
                else { return nil }
                return client
            }
        }
        #expect(holders.count == 2)
        let refused = try await daemon.ctl(["status"])
        #expect(refused.status == 69, "\(refused.output) \(refused.errors)")
        #expect(refused.errors.contains("serves at most 2 clients"), "\(refused.errors)")
        withExtendedLifetime(holders) {}  // both slots stay taken until here
        await daemon.stop()
    }

    /// Out of descriptors while starting (the socket thread's epoll among them): the daemon exits with an error,
    /// never a trap.
    /// (Below six, the runtime's own dispatch queue cannot start: no program of this toolchain can run there.)
    @Test(arguments: [6])
    func tooFewDescriptorsToStartIsAnErrorNotACrash(limit: Int) async throws {
        let wrapper = """
            import os, resource, signal, sys
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_NOFILE, (\(limit), \(limit)))
            os.execv(sys.argv[1], sys.argv[1:])
            """
        let daemon = try await BreezedProcess(
            ["--no-gpsd", "--no-geoclue", "--offline"], wrapper: wrapper, waitForSocket: false)
        let status = await daemon.exitStatus(timeout: 20)
        if status == nil { await daemon.stop() }
        // Where it runs out depends on what else is open (the configuration file, the index, the socket): any of
        // them is a clean exit with an error, never a signal.
        #expect(daemon.process.terminationReason == .exit, "ended by a signal: \(daemon.log())")
        #expect(status != nil && status != 0, "\(String(describing: status)) \(daemon.log())")
    }
}
