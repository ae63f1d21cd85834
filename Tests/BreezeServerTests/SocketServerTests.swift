import BreezeCore
import BreezeProtocol
import BreezeServer
import BreezeSystem
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A live server on a temporary socket.
final class LiveServer {
    let path: String
    let server: SocketServer

    /// `handler` answers later (as a task), with messages made replies to the request; `immediate`, when it gives
    /// lines, answers now instead.
    init(
        configure: (inout SocketServer.Configuration) -> Void = { _ in }, mode: mode_t = 0o660,
        handler: @escaping @Sendable (ProtocolRequest, SocketServer.Peer) async -> [JSONValue] = { _, _ in [] },
        immediate: (@Sendable (ProtocolRequest, SocketServer.Peer) -> [[UInt8]]?)? = nil
    ) throws {
        path = TemporaryPaths.make("test", suffix: ".sock")
        var configuration = SocketServer.Configuration()
        configure(&configuration)
        server = try SocketServer(listener: try UnixListener(path: path, mode: mode), configuration: configuration) {
            request, peer in
            if let lines = immediate?(request, peer) { return .now(lines) }
            return .later {
                await handler(request, peer).map { ProtocolMessage.reply($0, id: request.id).encodedLine() }
            }
        }
        server.start()
    }

    func client(receiveBuffer: Int32? = nil) -> TestClient? {
        TestClient(path: path, receiveBuffer: receiveBuffer)
    }

    deinit { server.stop() }
}

func location(_ n: Int, padding: Int = 0) -> JSONValue {
    .object([
        ("class", .string("LOCATION")), ("n", .number(Double(n))),
        ("pad", .string(String(repeating: "x", count: padding))),
    ])
}

@Suite struct SocketServerTests {
    @Test func greetsWithVersion() async throws {
        let live = try LiveServer()
        let client = try #require(live.client())
        let version = try #require(await client.next())
        #expect(version["class"] == .string("VERSION"))
        #expect(version["proto_major"] == .number(1))
    }

    @Test func answersBadLinesAndKeepsTheConnection() async throws {
        let live = try LiveServer { $0.maximumLineLength = 1_024 }
        let client = try #require(live.client())
        _ = await client.next()
        client.send("this is not json\n")
        #expect(await client.next()?["code"] == .string("malformed-json"))
        client.send(bytes: [0xFF, 0xFE, 0x00, 0x0A])
        #expect(await client.next()?["code"] == .string("invalid-text"))
        client.send(String(repeating: "y", count: 5_000) + "\n")
        #expect(await client.next()?["code"] == .string("line-too-long"))
        client.send("{\"command\":\"fly\",\"id\":9}\n")
        let unknown = try #require(await client.next())
        #expect(unknown["code"] == .string("unknown-command"))
        client.send("{\"command\":\"ver")  // half a line, then the rest
        client.send("sion\",\"id\":\"v\"}\n")
        let version = try #require(await client.next())
        #expect(version["class"] == .string("VERSION") && version["id"] == .string("v"))
    }

    /// `version` answers with the owner's members as they are now, the request's id last (an "id" among the members
    /// gives way to it), byte for byte what the reply object encodes to.
    @Test func versionCarriesTheOwnersMembersAndTheRequestsID() async throws {
        let live = try LiveServer { $0.release = "9.9" }
        let client = try #require(live.client())
        _ = await client.next()
        let members: [(String, JSONValue)] = [
            ("mqtt", .object([("state", .string("connected"))])), ("id", .number(99)),
        ]
        for (extra, id) in [([], #"7"#), (members, #""a\"b""#), (members, nil), (Array(members.prefix(1)), "3.5")] {
            live.server.setVersionMembers(extra)
            client.send("{\"command\":\"version\"" + (id.map { ",\"id\":" + $0 } ?? "") + "}\n")
            let expected = ProtocolMessage.reply(
                ProtocolMessage.version(release: "9.9", extra: extra), id: try id.map { try JSONValue.parse($0) })
            let line = await client.nextLine()
            let wanted = String(decoding: expected.encodedLine().dropLast(), as: UTF8.self)
            #expect(line == wanted, "\(line ?? "no line") against \(wanted)")
        }
    }

    @Test func watchSendsTheSnapshotThenEveryChange() async throws {
        let live = try LiveServer()
        live.server.publish(.object([("class", .string("PERMISSION")), ("state", .string("authorized"))]))
        live.server.publish(location(1))
        let client = try #require(live.client())
        _ = await client.next()
        client.send("{\"command\":\"watch\",\"id\":1}\n")
        #expect(await client.next()?["class"] == .string("WATCH"))
        #expect(await client.next()?["class"] == .string("PERMISSION"))
        #expect(await client.next()?["n"] == .number(1))
        live.server.publish(location(2))
        #expect(await client.next()?["n"] == .number(2))
        client.send("{\"command\":\"status\",\"id\":\"s\"}\n")
        let permission = try #require(await client.next(class: "PERMISSION"))
        #expect(permission["id"] == .string("s"))
    }

    @Test func watchAndUnwatchAreAnsweredWithWatch() async throws {
        let live = try LiveServer()
        let client = try #require(live.client())
        _ = await client.next()
        client.send("{\"command\":\"watch\",\"classes\":[\"air\",\"LOCATION\"],\"id\":1}\n")
        let watch = try #require(await client.next())
        #expect(watch.encoded() == #"{"class":"WATCH","enable":true,"classes":["LOCATION","AIR"],"id":1}"#)
        client.send("{\"command\":\"unwatch\",\"id\":\"u\"}\n")
        let unwatch = try #require(await client.next())
        #expect(unwatch.encoded() == #"{"class":"WATCH","enable":false,"id":"u"}"#)
    }

    /// An unknown class once watched nothing without a word; now it is refused, and the watch before it stands.
    @Test func anUnknownWatchClassIsABadArgumentCarryingTheId() async throws {
        let live = try LiveServer()
        let client = try #require(live.client())
        _ = await client.next()
        client.send("{\"command\":\"watch\",\"classes\":[\"AIR\"],\"id\":1}\n")
        #expect(await client.next()?["class"] == .string("WATCH"))
        client.send("{\"command\":\"watch\",\"classes\":[\"BOGUS\"],\"id\":2}\n")
        let error = try #require(await client.next())
        #expect(error["class"] == .string("ERROR") && error["code"] == .string("bad-argument"), "\(error.encoded())")
        #expect(error["id"] == .number(2))
        live.server.publish(.object([("class", .string("AIR")), ("us_aqi", .number(21))]))
        #expect(await client.next()?["us_aqi"] == .number(21))
    }

    /// Every reply to a line with an id carries it, ERROR included, however the line went wrong after its JSON.
    @Test(arguments: [
        (#"{"command":"fly","id":4}"#, "unknown-command", JSONValue.number(4)),
        (#"{"id":"no-command"}"#, "bad-argument", .string("no-command")),
        (#"{"command":"watch","classes":"LOCATION","id":5}"#, "bad-argument", .number(5)),
        (#"{"command":"lookup","id":6}"#, "bad-argument", .number(6)),
    ])
    func errorsCarryTheRequestsId(line: String, code: String, id: JSONValue) async throws {
        let live = try LiveServer(handler: { request, _ in
            do throws(ProtocolError) {
                _ = try request.number("latitude")
                return []
            } catch {
                return [ProtocolMessage.error(error)]
            }
        })
        let client = try #require(live.client())
        _ = await client.next()
        client.send(line + "\n")
        let error = try #require(await client.next())
        #expect(error["class"] == .string("ERROR") && error["code"] == .string(code), "\(error.encoded())")
        #expect(error["id"] == id, "\(error.encoded())")
    }

    @Test func watchCanBeLimitedToSomeClasses() async throws {
        let live = try LiveServer()
        let client = try #require(live.client())
        _ = await client.next()
        client.send("{\"command\":\"watch\",\"classes\":[\"AIR\"]}\n")
        _ = await client.next()
        live.server.publish(location(1))
        live.server.publish(.object([("class", .string("AIR")), ("us_aqi", .number(21))]))
        #expect(await client.next()?["class"] == .string("AIR"))
    }

    @Test func aClassWatchedBeforeItIsFirstPublishedArrives() async throws {
        let live = try LiveServer {
            $0.snapshotOrder = ["LOCATION"]
            $0.watchableClasses = ["LOCATION", "SAVED"]
        }
        let early = try #require(live.client())
        _ = await early.next()
        early.send("{\"command\":\"watch\",\"classes\":[\"saved\"]}\n")
        #expect(await early.next()?["class"] == .string("WATCH"))
        live.server.publish(location(1))
        live.server.publish(.object([("class", .string("SAVED")), ("count", .number(2))]))
        let saved = try #require(await early.next())
        #expect(saved["class"] == .string("SAVED") && saved["count"] == .number(2))

        let late = try #require(live.client())
        _ = await late.next()
        late.send("{\"command\":\"watch\",\"classes\":[\"SAVED\"]}\n")
        #expect(await late.next()?["class"] == .string("WATCH"))
        live.server.publish(.object([("class", .string("SAVED")), ("count", .number(3))]))
        #expect(await late.next()?["count"] == .number(3))
        #expect(await early.next()?["count"] == .number(3))
    }

    @Test func requestsGoToTheHandlerAndRepliesCarryTheirId() async throws {
        let live = try LiveServer(handler: { _, _ in
            [.object([("class", .string("PLACE")), ("city", .string("Bern"))])]
        })
        let client = try #require(live.client())
        _ = await client.next()
        client.send("{\"command\":\"lookup\",\"id\":42,\"latitude\":46.9,\"longitude\":7.4}\n")
        let reply = try #require(await client.next())
        #expect(reply["city"] == .string("Bern") && reply["id"] == .number(42))
    }

    @Test func aSlowReaderGetsTheNewestStateNeverStaleAfterFresh() async throws {
        let live = try LiveServer()
        let client = try #require(live.client(receiveBuffer: 4_096))
        _ = await client.next()
        client.send("{\"command\":\"watch\"}\n")
        _ = await client.next()
        for n in 1...2_000 { live.server.publish(location(n, padding: 200)) }
        // Read until the newest arrives (the claim under test), with a generous deadline for a loaded machine.
        var seen: [Int] = []
        let deadline = Date().addingTimeInterval(30)
        while seen.last != 2_000, Date() < deadline, let value = await client.next(timeout: 30) {
            if let n = value["n"]?.numberValue { seen.append(Int(n)) }
        }
        #expect(seen.last == 2_000)
        #expect(seen == seen.sorted())
        #expect(seen.count < 2_000, "coalesced: \(seen.count) of 2,000 delivered")
    }

    @Test func aStuckClientIsClosedWhileOthersKeepUp() async throws {
        let live = try LiveServer { $0.stallTimeout = 1 }
        let stuck = try #require(live.client(receiveBuffer: 4_096))
        let fast = try #require(live.client())
        for client in [stuck, fast] {
            client.send("{\"command\":\"watch\"}\n")
        }
        _ = await fast.next(class: "WATCH")
        for n in 1...50 {
            live.server.publish(location(n, padding: 60_000))
            #expect(await fast.next(class: "LOCATION")?["n"] == .number(Double(n)))
        }
        // The stuck client reads nothing; within a few seconds the server gives up on it.
        let deadline = Date().addingTimeInterval(10)
        while live.server.clientCount > 1 && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(live.server.clientCount == 1)
        // What was queued in its socket can still be read; then the stream ends. (The closing ERROR is sent only
        // if the socket has room for it, which a stuck client's rarely has.)
        while await stuck.nextLine(timeout: 2) != nil {}
        #expect(stuck.closedByServer)
    }

    @Test func aThousandWatchersEachReceiveEveryUpdate() async throws {
        let live = try LiveServer { $0.maximumClients = 1_100 }
        SocketServer.raiseDescriptorLimit(atLeast: 4_096)
        var clients: [TestClient] = []
        for _ in 0..<1_000 {
            let client = try #require(live.client())
            client.send("{\"command\":\"watch\",\"classes\":[\"LOCATION\"]}\n")
            clients.append(client)
        }
        for client in clients { #expect(await client.next(class: "WATCH") != nil) }
        for n in 1...5 {
            live.server.publish(location(n))
            var received = 0
            for client in clients where await client.next(class: "LOCATION")?["n"] == .number(Double(n)) {
                received += 1
            }
            #expect(received == 1_000, "update \(n)")
        }
    }

    @Test func theClientLimitIsSaidNotSilent() async throws {
        let live = try LiveServer { $0.maximumClients = 2 }
        let first = try #require(live.client())
        let second = try #require(live.client())
        _ = await first.next()
        _ = await second.next()
        let third = try #require(live.client())
        let refusal = try #require(await third.next())
        #expect(refusal["code"] == .string("too-many-clients"))
        #expect(await third.nextLine(timeout: 10) == nil)
        #expect(third.closedByServer)
    }

    @Test func stoppingTellsClientsWhy() async throws {
        let live = try LiveServer()
        let client = try #require(live.client())
        _ = await client.next()
        live.server.stop()
        #expect(await client.next(class: "ERROR")?["code"] == .string("shutting-down"))
    }

    @Test func servesOnADescriptorInheritedFromSystemd() async throws {
        // What systemd does for socket activation: bind and listen, then hand over the descriptor.
        let path = TemporaryPaths.make("inherited", suffix: ".sock")
        let made = try UnixListener(path: path)
        let inherited = try UnixListener(inheritedDescriptor: dup(made.fd))
        let server = try SocketServer(listener: inherited) { _, _ in .now([]) }
        server.start()
        defer { server.stop() }
        let client = try #require(TestClient(path: path))
        #expect(await client.next()?["class"] == .string("VERSION"))
        _ = made
    }

    @Test(.enabled(if: getuid() == 0, "needs root to connect as another user"))
    func otherUsersMayReadButNotChangeState() async throws {
        let live = try LiveServer(configure: { $0.trust = TrustPolicy(ownUID: getuid(), groupID: nil) }, mode: 0o666) {
            _, _ in
            [.object([("class", .string("LOCATION")), ("source", .string("manual"))])]
        }
        // Precise for trusted peers, rounded to city level for everyone else.
        live.server.publish(
            .object([("class", .string("LOCATION")), ("latitude", .number(46.498319))]),
            others: .object([("class", .string("LOCATION")), ("latitude", .number(46.5))]))
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile()
            f.readline()
            s.sendall(b'{"command":"select","query":"Bern","id":1}\\n'); print(f.readline().strip())
            s.sendall(b'{"command":"version","id":2}\\n'); print(f.readline().strip())
            s.sendall(b'{"command":"status","id":3}\\n'); print(f.readline().strip())
            """
        let output = Pipe()
        let process = try await ChildProcess.launch(
            "/usr/bin/setpriv",
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", script, live.path],
            output: output)
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map { try? JSONValue.parse(String($0)) }
        #expect(lines.count == 3)
        #expect(lines.first??["code"] == .string("not-permitted"))
        #expect(lines.first??["id"] == .number(1))
        #expect(lines.dropFirst().first??["class"] == .string("VERSION"))
        #expect(lines.last??["latitude"] == .number(46.5))

        // The same status as root (trusted) is precise.
        let trusted = try #require(live.client())
        _ = await trusted.next()
        trusted.send("{\"command\":\"status\"}\n")
        #expect(await trusted.next(class: "LOCATION")?["latitude"] == .number(46.498319))
    }
}

@Suite struct ProtocolDocumentationTests {
    /// docs/subscribe.py, the program written from docs/PROTOCOL.md, against a live server: one line per place,
    /// however often the same place is sent again (a new fix, a new time).
    @Test func theDocumentedSubscriberPrintsEachPlaceChangeOnce() async throws {
        let live = try LiveServer()
        func publish(_ city: String, _ id: Int, time: Int) {
            live.server.publish(
                .object([
                    ("class", .string("LOCATION")), ("name", .string("\(city), Switzerland")), ("city", .string(city)),
                    ("geoname_id", .number(Double(id))), ("time", .string("2026-12-01T10:00:\(10 + time).000Z")),
                ]))
        }
        // The first place is there before the program connects: its watch gets it as the snapshot.
        publish("Adelboden", 2_661_881, time: 0)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/subscribe.py").path
        let output = Pipe()
        let printed = EventRecorder<String>()
        output.fileHandleForReading.readabilityHandler = { handle in
            printed.append(String(decoding: handle.availableData, as: UTF8.self))
        }
        let process = try await ChildProcess.launch("/usr/bin/python3", [script, live.path], output: output)
        defer { if process.isRunning { process.terminate() } }
        func text() -> String { printed.all.joined() }

        #expect(await printed.wait(timeout: 10) { _ in text().contains("Adelboden") })
        publish("Adelboden", 2_661_881, time: 1)
        publish("Adelboden", 2_661_881, time: 2)
        publish("Frutigen", 2_660_727, time: 3)
        #expect(await printed.wait(timeout: 10) { _ in text().contains("Frutigen") })
        publish("Frutigen", 2_660_727, time: 4)
        publish("Bern", 2_661_552, time: 5)
        #expect(await printed.wait(timeout: 10) { _ in text().contains("Bern") })
        live.server.publish(
            .object([
                ("class", .string("LOCATION")), ("state", .string("denied")), ("name", .null), ("geoname_id", .null),
            ]))
        #expect(await printed.wait(timeout: 10) { _ in text().contains("(no place)") })
        publish("Bern", 2_661_552, time: 6)
        #expect(await printed.wait(timeout: 10) { _ in text().hasSuffix("(no place)\nBern, Switzerland\n") })
        output.fileHandleForReading.readabilityHandler = nil
        #expect(
            text()
                == "Adelboden, Switzerland\nFrutigen, Switzerland\nBern, Switzerland\n(no place)\nBern, Switzerland\n")
    }
}
