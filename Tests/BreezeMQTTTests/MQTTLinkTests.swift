import BreezeMQTT
import BreezeTestSupport
import Foundation
import Synchronization
import Testing

/// The link against a real mosquitto started by the test.
@Suite(.serialized) struct MQTTLinkTests {
    func link(_ url: String, topic: String = "test/node/availability") throws -> (MQTTLink, StateLog) {
        var configuration = MQTTLink.Configuration(
            broker: try MQTTBroker(url: url), clientID: "link-test-\(UInt32.random(in: 0...UInt32.max))")
        configuration.availabilityTopic = topic
        configuration.backoff = .init(initial: 0.05, maximum: 0.5)
        let log = StateLog()
        return (MQTTLink(configuration: configuration) { log.append($0) }, log)
    }

    @Test func publishesRetainedStateAndGoesOfflineOnStop() async throws {
        let broker = try await Mosquitto()
        let (link, _) = try link(broker.url())
        link.publish("test/node/location", Array("{\"name\":\"Bern\"}".utf8))
        link.start()
        let watcher = try await MQTTWatcher(port: broker.port, topics: ["test/#"])
        #expect(await watcher.wait { $0.latest["test/node/location"]?.payload == "{\"name\":\"Bern\"}" })
        #expect(await watcher.wait { $0.latest["test/node/availability"]?.payload == "online" })
        #expect(watcher.latest["test/node/location"]?.retained == true)
        await link.stop()
        #expect(await watcher.wait { $0.latest["test/node/availability"]?.payload == "offline" })
        #expect(link.state == .stopped)
        await watcher.stop()
        await broker.stop()
    }

    @Test func aBrokerDownIsAStateWithAReasonAndTheOutboxStaysBounded() async throws {
        let port = Mosquitto.freePort()
        let (link, log) = try link("mqtt://127.0.0.1:\(port)")
        link.start()
        #expect(await eventually(timeout: 10) { link.state.reason != nil })
        // In people's words, without the library's call or its jargon.
        #expect(link.state == .unreachable(reason: "cannot connect: Connection refused"), "\(link.state)")
        for value in 0..<20_000 { link.publish("test/node/air", Array("{\"us_aqi\":\(value % 500)}".utf8)) }
        #expect(link.outboxSize.topics == 1)
        #expect(link.outboxSize.bytes < 64)
        await link.stop()
        #expect(log.states.first?.reason != nil, "\(log.states)")
        #expect(log.states.last == .stopped)
    }

    @Test func reconnectsAfterTheBrokerRestartsAndSendsTheStateAgain() async throws {
        let broker = try await Mosquitto()
        let (link, _) = try link(broker.url())
        link.publish("test/node/location", Array("{\"name\":\"Oslo\"}".utf8))
        link.start()
        #expect(await eventually(timeout: 10) { link.state == .connected })
        await broker.stop()
        #expect(await eventually(timeout: 20) { link.state.reason != nil })
        link.publish("test/node/location", Array("{\"name\":\"Rome\"}".utf8))
        try await broker.start()
        #expect(await eventually(timeout: 20) { link.state == .connected && link.connections == 2 })
        // A new subscriber after the restart: the broker kept nothing (no persistence), so this is republished.
        let watcher = try await MQTTWatcher(port: broker.port, topics: ["test/#"])
        #expect(await watcher.wait { $0.latest["test/node/location"]?.payload == "{\"name\":\"Rome\"}" })
        #expect(watcher.latest["test/node/availability"]?.payload == "online")
        await link.stop()
        await watcher.stop()
        await broker.stop()
    }
}

final class StateLog: Sendable {
    private let log = Mutex<[MQTTLink.State]>([])
    func append(_ state: MQTTLink.State) { log.withLock { $0.append(state) } }
    var states: [MQTTLink.State] { log.withLock { $0 } }
}
