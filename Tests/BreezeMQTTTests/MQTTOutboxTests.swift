import BreezeMQTT
import FoundationEssentials
import Testing

@Suite struct MQTTOutboxTests {
    @Test func theNewestPayloadOfATopicReplacesTheOneWaiting() {
        var outbox = MQTTOutbox()
        for value in 0..<1_000 { outbox.set("breeze/a/location", Array("\(value)".utf8)) }
        let taken = outbox.take()
        #expect(taken.count == 1)
        #expect(taken.first.map { String(decoding: $0.payload, as: UTF8.self) } == "999")
        #expect(outbox.take().isEmpty)
    }

    @Test func newTopicsPastTheBoundAreRefusedAndKnownOnesStillChange() {
        var outbox = MQTTOutbox()
        var accepted = 0
        for index in 0..<MQTTOutbox.maximumTopics where outbox.set("t/\(index)", [1]) { accepted += 1 }
        #expect(accepted == MQTTOutbox.maximumTopics)
        let extra = outbox.set("t/one-too-many", [1])
        #expect(!extra)
        let known = outbox.set("t/0", [2])
        #expect(known)
        #expect(outbox.latest.count == MQTTOutbox.maximumTopics)
    }

    @Test func anOversizedPayloadIsRefused() {
        var outbox = MQTTOutbox()
        let tooLarge = outbox.set("t", [UInt8](repeating: 0, count: MQTTOutbox.maximumPayload + 1))
        #expect(!tooLarge)
        let largest = outbox.set("t", [UInt8](repeating: 0, count: MQTTOutbox.maximumPayload))
        #expect(largest)
    }

    @Test func aReconnectionSendsEveryTopicAgainButAnUnchangedPayloadIsNotResent() {
        var outbox = MQTTOutbox()
        outbox.set("a", [1])
        outbox.set("b", [2])
        #expect(outbox.take().map(\.topic) == ["a", "b"])
        outbox.set("a", [1])
        #expect(outbox.take().isEmpty)
        outbox.reconnected()
        #expect(outbox.take().map(\.topic).sorted() == ["a", "b"])
    }

    @Test func bytesHeldStayTheSameWhateverTheNumberOfUpdates() {
        var outbox = MQTTOutbox()
        outbox.set("breeze/a/air", [UInt8](repeating: 7, count: 500))
        let before = outbox.byteCount
        for _ in 0..<10_000 { outbox.set("breeze/a/air", [UInt8](repeating: 7, count: 500)) }
        for value in 0..<10_000 { outbox.set("breeze/a/air", [UInt8](repeating: UInt8(value % 200), count: 500)) }
        #expect(outbox.byteCount == before)
    }
}

@Suite struct MQTTBrokerTests {
    @Test(arguments: [
        ("mqtt://broker.lan", "broker.lan", 1883, false, nil as String?, nil as String?),
        ("mqtts://broker.lan", "broker.lan", 8883, true, nil, nil),
        ("mqtt://pi:secret@10.0.0.2:1884", "10.0.0.2", 1884, false, "pi", "secret"),
        ("mqtt://pi@127.0.0.1:1/", "127.0.0.1", 1, false, "pi", nil),
    ])
    func parsesABrokerURL(url: String, host: String, port: Int, tls: Bool, user: String?, password: String?) throws {
        let broker = try MQTTBroker(url: url)
        #expect(broker.host == host && broker.port == port && broker.tls == tls)
        #expect(broker.username == user && broker.password == password)
        #expect(!broker.description.contains("secret"))
    }

    @Test(arguments: [
        "http://broker", "mqtt://", "mqtt://broker:0", "mqtt://broker:70000", "mqtt://b/path", "broker", "mqtt://b?x=1",
        "mqtt://b#f", "mqtt://b?", "mqtt://b#", "mqtt:b", "mqtt:///b", "mqtt://b:port", "mqtt://b:1:2", "mqtt://[::1",
        "mqtt://::1", " mqtt://b", "1mqtt://b", "", "mqtt://b//", "mqtt://b:99999999999999999999",
    ])
    func refusesAURLThatIsNotABroker(url: String) {
        #expect(throws: MQTTError.self) { try MQTTBroker(url: url) }
    }

    /// The broker as Foundation's URL parser read the URL, for what both accept.
    @Test(arguments: [
        "mqtt://broker.lan", "MQTTS://Broker.LAN:8884", "mqtt://pi:secret@10.0.0.2:1884/", "mqtt://[::1]:1884",
        "mqtt://[fe80::1%25eth0]:1", "mqtt://p%40i:s%3Acret@h", "mqtt://:pw@h", "mqtt://@h", "mqtt://u:@h", "mqtt://h:",
        "mqtt://u@v@h", "mqtt://u:p:q@h", "mqtts://u%zz@h", "mqtt://h:01884", "mqtt://h%41", "mqtt://ünï.lan",
    ])
    func readsABrokerURLAsFoundationDoes(url: String) throws {
        let components = try #require(URLComponents(string: url))
        let broker = try MQTTBroker(url: url)
        #expect(broker.host == components.host)
        #expect(broker.tls == (components.scheme?.lowercased() == "mqtts"))
        #expect(broker.port == components.port ?? (broker.tls ? 8883 : 1883))
        #expect(broker.username == components.user.flatMap { $0.isEmpty ? nil : $0 })
        #expect(broker.password == components.password)
    }
}
