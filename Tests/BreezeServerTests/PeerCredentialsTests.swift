import BreezeCore
import BreezeProtocol
import BreezeServer
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct PeerCredentialsTests {
    @Test func aMemberByItsConnectionsGroupsIsTrustedWhateverTheGroupDatabaseSays() {
        let policy = TrustPolicy(ownUID: 4_242, groupID: 4_343)
        // nobody is in no group of /etc/group; the groups its connection carries are what count.
        #expect(policy.trusts(PeerCredentials(pid: 1, uid: 65_534, gid: 65_534, groups: [4_343])))
        #expect(!policy.trusts(PeerCredentials(pid: 1, uid: 65_534, gid: 65_534, groups: [100])))
        #expect(policy.trusts(PeerCredentials(pid: 1, uid: 65_534, gid: 4_343)))
        #expect(policy.trusts(PeerCredentials(pid: 1, uid: 4_242, gid: 65_534)))
        #expect(policy.trusts(PeerCredentials(pid: 1, uid: 0, gid: 0)))
    }

    @Test(.enabled(if: getuid() == 0, "needs root to connect as another user with other groups"))
    func theServerTrustsAPeerByTheGroupsItConnectedWith() async throws {
        let seen = EventRecorder<SocketServer.Peer>()
        let live = try LiveServer(configure: { $0.trust = TrustPolicy(ownUID: getuid(), groupID: 4_343) }, mode: 0o666)
        {
            _, peer in
            seen.append(peer)
            return [.object([("class", .string("LOCATION")), ("source", .string("manual"))])]
        }
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile()
            f.readline()
            s.sendall(b'{"command":"select","query":"Bern","id":1}\\n'); print(f.readline().strip())
            """
        let output = Pipe()
        let process = try await ChildProcess.launch(
            "/usr/bin/setpriv",
            ["--reuid=nobody", "--regid=nogroup", "--groups=4242,4343", "/usr/bin/python3", "-c", script, live.path],
            output: output)
        // Waited for without blocking: the request's handler runs on the cooperative pool.
        let exited = EventRecorder<Bool>()
        #expect(await exited.wait(timeout: 30) { _ in !process.isRunning })
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let reply = try JSONValue.parse(text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(reply["source"] == .string("manual"), "\(text)")
        #expect(Set(seen.all.first?.credentials?.groups ?? []) == [4_242, 4_343])
        #expect(seen.all.first?.trusted == true)
    }
}

@Suite struct ProcGroupsLineTests {
    @Test(
        arguments: [
            ("Name:\tpython3\nGroups:\t4242 4343 \nNgid:\t0\n", [4_242, 4_343] as [UInt32]?),
            ("Groups:\t\n", []), ("Name:\tx\n", nil), ("Groups:\t12 -1\n", nil), ("Groups:\t99999999999\n", nil),
            ("Groups:\t+5\n", nil),
        ] as [(String, [UInt32]?)])
    func readsOnlyNumbersFromTheGroupsLine(status: String, groups: [UInt32]?) {
        #expect(PeerCredentials.parseGroupsLine(status) == groups)
    }
}
