import BreezeCore
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// breezed publishing to a real mosquitto started by each test, read back with mosquitto_sub.
@Suite(.serialized) struct MQTTEndToEndTests {
    static let everything = ["breeze/#", "homeassistant/#"]

    @Test func publishesRetainedDiscoveryAndCoarseStateAfterACityIsSelected() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let broker = try await Mosquitto()
        let daemon = try await BreezedProcess([
            "--no-gpsd", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString, "--fallback-city", "Bern",
            "--mqtt", broker.url(), "--mqtt-node", "alpha",
        ])
        let selected = try await daemon.ctl(["select", "Zurich"])
        #expect(selected.status == 0, "\(selected.errors)")
        let exact = object(try await daemon.ctl(["where", "--json"]).output)

        // A subscriber that comes later gets everything from the broker's retained messages.
        let watcher = try await MQTTWatcher(port: broker.port, topics: Self.everything)
        let arrived = await watcher.wait(timeout: 30) { watcher in
            watcher.object("breeze/alpha/location")?["city"] as? String == "Zürich"
                && watcher.object("breeze/alpha/air")?["place"] as? String == "Zürich, Switzerland"
                && watcher.object("breeze/alpha/air")?["state"] as? String == "fresh"
                && watcher.object("breeze/alpha/weather")?["state"] as? String == "fresh"
                && watcher.latest["homeassistant/sensor/breeze_alpha/temperature/config"] != nil
        }
        #expect(arrived, "\(watcher.latest.keys.sorted())")
        // Retained: a subscriber that comes now gets each topic at once, flagged as retained.
        let later = try await MQTTWatcher(port: broker.port, topics: Self.everything)
        #expect(await later.wait { $0.latest.count == watcher.latest.count }, "\(later.latest.keys.sorted())")
        for name in ["location", "air", "pollen", "climate", "weather", "permission", "availability"] {
            #expect(later.latest["breeze/alpha/\(name)"]?.retained == true, "\(name)")
        }
        await later.stop()
        #expect(watcher.latest["breeze/alpha/availability"]?.payload == "online")
        #expect(watcher.object("breeze/alpha/air")?["us_aqi"] as? Double == 27)
        #expect(watcher.object("breeze/alpha/air")?["class"] as? String == "AIR")
        #expect(watcher.object("breeze/alpha/permission")?["class"] as? String == "PERMISSION")

        // Coarse by default: the exact centre the socket's trusted peers see, rounded to two decimals.
        let location = try #require(watcher.object("breeze/alpha/location"))
        let latitude = try #require(exact["latitude"] as? Double)
        let longitude = try #require(exact["longitude"] as? Double)
        #expect(location["latitude"] as? Double == (latitude * 100).rounded() / 100)
        #expect(location["longitude"] as? Double == (longitude * 100).rounded() / 100)
        #expect(location["latitude"] as? Double != latitude)

        // Home Assistant: one device, a tracker, and the sensors with their classes and units.
        let discovered = watcher.latest.keys.filter { $0.hasPrefix("homeassistant/") && $0.hasSuffix("/config") }
        #expect(discovered.count == 12, "\(discovered.sorted())")
        // Each entity's id as Home Assistant 2025.10 on takes it ("sensor.breeze_alpha_us_aqi"); no `object_id`,
        // which it stops reading in 2026.4.
        for topic in discovered {
            let config = try #require(watcher.object(topic))
            let component = topic.split(separator: "/")[1]
            #expect(config["object_id"] == nil, "\(topic)")
            #expect(config["default_entity_id"] as? String == "\(component).\(config["unique_id"] as? String ?? "?")", "\(topic)")
        }
        let aqi = try #require(watcher.object("homeassistant/sensor/breeze_alpha/us_aqi/config"))
        #expect(aqi["device_class"] as? String == "aqi")
        #expect(aqi["state_class"] as? String == "measurement")
        #expect(aqi["state_topic"] as? String == "breeze/alpha/air")
        #expect(aqi["availability_topic"] as? String == "breeze/alpha/availability")
        let device = try #require(aqi["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["breeze_alpha"])
        #expect(device["model"] as? String == "breezed")
        #expect(device["sw_version"] as? String == Release.version)
        let pm25 = try #require(watcher.object("homeassistant/sensor/breeze_alpha/pm2_5/config"))
        #expect(pm25["device_class"] as? String == "pm25")
        #expect(pm25["unit_of_measurement"] as? String == "µg/m³")
        let co = try #require(watcher.object("homeassistant/sensor/breeze_alpha/co/config"))
        #expect(co["device_class"] as? String == "carbon_monoxide")
        #expect(co["unit_of_measurement"] as? String == "ppm")
        #expect((co["value_template"] as? String)?.contains("24.45 / 28010") == true)
        let tracker = try #require(watcher.object("homeassistant/device_tracker/breeze_alpha/location/config"))
        #expect(tracker["json_attributes_topic"] as? String == "breeze/alpha/location")
        let temperature = try #require(watcher.object("homeassistant/sensor/breeze_alpha/temperature/config"))
        #expect(temperature["device_class"] as? String == "temperature")

        let status = try await daemon.ctl(["status"])
        #expect(status.output.contains("MQTT: connected · \(broker.url()) as alpha"), "\(status.output)")
        await daemon.stop()
        await watcher.stop()
        await broker.stop()
    }

    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
    func aLiveFixGoesOutCoarseInEveryFieldAndNothingOfItOnceLocationIsOff() async throws {
        let port = GPSFake.freePort()
        let gpsd = try await GPSFake(log: DaemonEndToEndTests.drive, port: port, once: false, interval: 0.02)
        let broker = try await Mosquitto()
        let daemon = try await BreezedProcess([
            "--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline", "--fallback-city", "Oslo",
            "--mqtt", broker.url(), "--mqtt-node", "live",
        ])
        let watcher = try await MQTTWatcher(port: broker.port, topics: ["breeze/live/location"])
        #expect(await watcher.wait(timeout: 60) { $0.object("breeze/live/location")?["source"] as? String == "gpsd" })
        let live = try #require(watcher.object("breeze/live/location"))
        for key in ["latitude", "longitude"] {
            let value = try #require(live[key] as? Double)
            #expect((value * 100).rounded() / 100 == value, "\(key) \(value)")
        }
        let accuracy = try #require(live["accuracy"] as? Double)
        #expect(accuracy >= 1_000 && accuracy.truncatingRemainder(dividingBy: 1_000) == 0, "\(accuracy)")
        let distance = try #require(live["distance_m"] as? Double)
        #expect(distance.truncatingRemainder(dividingBy: 1_000) == 0, "\(distance)")
        let time = try #require(live["time"] as? String)
        #expect(time.hasSuffix(":00.000Z"), "\(time)")

        let off = try await daemon.ctl(["location", "off"])
        #expect(off.status == 0, "\(off.errors)")
        #expect(await watcher.wait { $0.object("breeze/live/location")?["city"] as? String == "Oslo" })
        let fallback = try #require(watcher.object("breeze/live/location"))
        #expect(fallback["source"] as? String != "gpsd")
        #expect(fallback["time"] is NSNull && fallback["accuracy"] is NSNull)
        // Nothing named from the live position is left on the broker for a subscriber that comes now.
        let later = try await MQTTWatcher(port: broker.port, topics: ["breeze/live/#"])
        #expect(await later.wait { $0.object("breeze/live/location")?["city"] as? String == "Oslo" })
        #expect(await later.wait { $0.latest["breeze/live/air"] != nil })
        #expect(!later.messages.contains { $0.payload.contains("Frutigen") || $0.payload.contains("\"gpsd\"") },
                "\(later.messages)")
        await daemon.stop()
        await watcher.stop()
        await later.stop()
        await broker.stop()
        await gpsd.stop()
    }

    @Test func discoveryFalseRemovesTheHomeAssistantConfigs() async throws {
        let broker = try await Mosquitto()
        let folder = try BreezedProcess.makeFolder()
        let config = folder + "/breezed.conf"
        let arguments = ["--config", config, "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"]
        try "[mqtt]\nurl = \(broker.url())\nnode = iota\n".write(toFile: config, atomically: true, encoding: .utf8)
        let first = try await BreezedProcess(arguments)
        let watcher = try await MQTTWatcher(port: broker.port, topics: ["homeassistant/#"])
        #expect(await watcher.wait { $0.latest.count == 10 }, "\(watcher.latest.keys.sorted())")
        await first.stop()
        try "[mqtt]\nurl = \(broker.url())\nnode = iota\ndiscovery = false\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let second = try await BreezedProcess(arguments)
        #expect(await watcher.wait { $0.latest.count >= 10 && $0.latest.values.allSatisfy { $0.payload.isEmpty } })
        let later = try await MQTTWatcher(port: broker.port, topics: ["homeassistant/#", "breeze/iota/availability"])
        #expect(await later.wait { $0.latest["breeze/iota/availability"]?.payload == "online" })
        #expect(later.latest.keys.filter { $0.hasPrefix("homeassistant/") }.isEmpty, "\(later.latest.keys.sorted())")
        await second.stop()
        await watcher.stop()
        await later.stop()
        await broker.stop()
    }

    @Test func preciseTrueInTheConfigurationPublishesExactCoordinates() async throws {
        let broker = try await Mosquitto()
        let folder = try BreezedProcess.makeFolder()
        let config = folder + "/breezed.conf"
        try "[mqtt]\nurl = \(broker.url())\nnode = beta\nprecise = true\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await BreezedProcess(
            folder: folder, ["--config", config, "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let exact = object(try await daemon.ctl(["where", "--json"], timeout: 20) { object($0.output)["city"] != nil }.output)
        let watcher = try await MQTTWatcher(port: broker.port, topics: ["breeze/beta/location"])
        #expect(await watcher.wait { $0.object("breeze/beta/location")?["city"] as? String == "Bern" })
        let latitude = try #require(exact["latitude"] as? Double)
        #expect(watcher.object("breeze/beta/location")?["latitude"] as? Double == latitude)
        #expect((latitude * 100).rounded() / 100 != latitude, "the test needs a centre with more than two decimals")
        await daemon.stop()
        await watcher.stop()
        await broker.stop()
    }

    @Test func theLastWillSaysOfflineAfterSIGKILLAndACleanStopSaysOfflineToo() async throws {
        let broker = try await Mosquitto()
        let watcher = try await MQTTWatcher(port: broker.port, topics: ["breeze/+/availability"])
        for (node, signal) in [("killed", SIGKILL), ("stopped", SIGTERM)] {
            let daemon = try await BreezedProcess([
                "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern", "--mqtt", broker.url(),
                "--mqtt-node", node,
            ])
            #expect(await watcher.wait { $0.latest["breeze/\(node)/availability"]?.payload == "online" }, "\(node)")
            daemon.signal(signal)
            #expect(await watcher.wait { $0.latest["breeze/\(node)/availability"]?.payload == "offline" }, "\(node)")
            let status = await daemon.exitStatus()
            if signal == SIGTERM { #expect(status == 0) }
            await daemon.stop()
        }
        // Retained: a subscriber that comes later sees both offline.
        let later = try await MQTTWatcher(port: broker.port, topics: ["breeze/+/availability"])
        #expect(await later.wait { watcher in
            ["killed", "stopped"].allSatisfy {
                watcher.latest["breeze/\($0)/availability"]?.payload == "offline"
                    && watcher.latest["breeze/\($0)/availability"]?.retained == true
            }
        })
        await watcher.stop()
        await later.stop()
        await broker.stop()
    }

    @Test func reconnectsAfterTheBrokerRestartsAndPublishesTheStateAgain() async throws {
        let broker = try await Mosquitto()
        let daemon = try await BreezedProcess([
            "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern", "--mqtt", broker.url(),
            "--mqtt-node", "gamma",
        ])
        _ = try await daemon.ctl(["status"], timeout: 20) { $0.output.contains("MQTT: connected") }
        await broker.stop()
        let down = try await daemon.ctl(["status"], timeout: 20) { $0.output.contains("MQTT: unreachable") }
        #expect(down.output.contains("MQTT: unreachable"), "\(down.output)")
        #expect(down.status == 0)
        let selected = try await daemon.ctl(["select", "Oslo"])
        #expect(selected.status == 0)
        try await broker.start()
        // The broker restarted without persistence: all it holds now, breezed sent after reconnecting.
        let watcher = try await MQTTWatcher(port: broker.port, topics: Self.everything)
        #expect(await watcher.wait(timeout: 40) { watcher in
            watcher.latest["breeze/gamma/availability"]?.payload == "online"
                && watcher.object("breeze/gamma/location")?["city"] as? String == "Oslo"
                && watcher.latest["homeassistant/sensor/breeze_gamma/us_aqi/config"] != nil
        }, "\(watcher.latest.keys.sorted())")
        #expect(await daemon.waitForLog("mqtt.connected"))
        await daemon.stop()
        await watcher.stop()
        await broker.stop()
    }

    @Test func aBrokerDownAtStartIsAStateAndTheOutboxStaysBounded() async throws {
        let port = Mosquitto.freePort()
        let daemon = try await BreezedProcess([
            "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern", "--mqtt", "mqtt://127.0.0.1:\(port)",
            "--mqtt-node", "delta",
        ])
        #expect(daemon.process.isRunning)
        let status = try await daemon.ctl(["status", "--json"], timeout: 20) { $0.output.contains("\"unreachable\"") }
        let mqtt = status.output.split(separator: "\n").map { object(String($0)) }.first { $0["class"] as? String == "MQTT" }
        #expect(mqtt?["state"] as? String == "unreachable", "\(status.output)")
        #expect((mqtt?["reason"] as? String)?.isEmpty == false)
        // Many changes while the broker is down: the newest of each topic waits, nothing more.
        let cities = ["Oslo", "Rome", "Lisbon", "Vienna"]
        // A first round of the same cities, so that what they read of the places index and the allocator's first
        // growth are in `before`: what is measured is what the changes keep, not what the first ones touch.
        for city in cities + cities {
            #expect(try await daemon.ctl(["select", city]).status == 0)
        }
        let before = ProcessMemory.residentBytes(pid: daemon.process.processIdentifier)
        for round in 0..<100 {
            let result = try await daemon.ctl(["select", cities[round % cities.count]])
            #expect(result.status == 0)
        }
        let after = ProcessMemory.residentBytes(pid: daemon.process.processIdentifier)
        print("mqtt.outbox: breezed RSS \(before / 1024) KiB before 100 place changes with the broker down, \(after / 1024) KiB after")
        #expect(after - before < 4 << 20, "RSS grew from \(before) to \(after) bytes")
        // The broker comes: it gets the last city, once.
        let broker = try await Mosquitto(port: port)
        let watcher = try await MQTTWatcher(port: broker.port, topics: ["breeze/delta/location"])
        // The link may be in its backoff (at most 30 s) when the broker comes.
        #expect(await watcher.wait(timeout: 45) {
            $0.object("breeze/delta/location")?["city"] as? String == cities[99 % cities.count]
        })
        #expect(watcher.messages.count == 1, "\(watcher.messages)")
        await daemon.stop()
        await watcher.stop()
        await broker.stop()
    }

    @Test func authenticatesWithAPasswordFileAndIsRefusedWithAWrongOne() async throws {
        let broker = try await Mosquitto(.init(users: ["breeze": "s3cret pass"]))
        let folder = try BreezedProcess.makeFolder()
        try "s3cret pass\n".write(toFile: folder + "/password", atomically: true, encoding: .utf8)
        try "wrong\n".write(toFile: folder + "/wrong", atomically: true, encoding: .utf8)
        try "[mqtt]\nurl = \(broker.url(user: "breeze"))  # the broker\nnode = epsilon\npassword_file = \(folder)/password\n".write(
            toFile: folder + "/good.conf", atomically: true, encoding: .utf8)
        try "[mqtt]\nurl = \(broker.url(user: "breeze"))\nnode = zeta\npassword_file = \(folder)/wrong\n".write(
            toFile: folder + "/bad.conf", atomically: true, encoding: .utf8)
        let good = try await BreezedProcess(
            ["--config", folder + "/good.conf", "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let bad = try await BreezedProcess(
            ["--config", folder + "/bad.conf", "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let watcher = try await MQTTWatcher(
            port: broker.port, topics: ["breeze/+/availability"], arguments: ["-u", "breeze", "-P", "s3cret pass"])
        #expect(await watcher.wait { $0.latest["breeze/epsilon/availability"]?.payload == "online" })
        let refused = try await bad.ctl(["status"], timeout: 20) { $0.output.contains("not authorised") }
        #expect(refused.output.contains("MQTT: refused"), "a wrong password is a refusal: \(refused.output)")
        #expect(refused.output.contains("not authorised"), "\(refused.output)")
        #expect(refused.output.contains("check the user in [mqtt] url and password_file"), "\(refused.output)")
        #expect(!refused.output.contains("mosquitto_"), "\(refused.output)")
        #expect(watcher.latest["breeze/zeta/availability"] == nil)

        // fleet with no --mqtt: the broker, the user and the password file from the configuration's [mqtt].
        let fleet = try await BreezedProcess.breezectl(["fleet", "--config", folder + "/good.conf", "--json"])
        #expect(fleet.status == 0, "\(fleet.errors)")
        #expect(fleet.output.contains("\"node\":\"epsilon\""), "\(fleet.output)")
        let wrong = try await BreezedProcess.breezectl(["fleet", "--config", folder + "/bad.conf"])
        #expect(wrong.status == 69, "\(wrong.errors)")
        #expect(wrong.errors.contains("not authorised"), "\(wrong.errors)")
        await good.stop()
        await bad.stop()
        await watcher.stop()
        await broker.stop()
    }

    @Test func publishesOverTLSToABrokerTheConfiguredAuthoritySigned() async throws {
        let folder = try BreezedProcess.makeFolder()
        try await TestCertificates.make(in: folder)
        let broker = try await Mosquitto(.init(certificate: (folder + "/server.pem", folder + "/server.key")))
        try "[mqtt]\nurl = \(broker.url(scheme: "mqtts"))\nnode = eta\nca_file = \(folder)/ca.pem\n".write(
            toFile: folder + "/tls.conf", atomically: true, encoding: .utf8)
        try "[mqtt]\nurl = \(broker.url(scheme: "mqtts"))\nnode = theta\nca_file = \(folder)/other-ca.pem\n".write(
            toFile: folder + "/other.conf", atomically: true, encoding: .utf8)
        let trusted = try await BreezedProcess(
            ["--config", folder + "/tls.conf", "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let untrusted = try await BreezedProcess(
            ["--config", folder + "/other.conf", "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let watcher = try await MQTTWatcher(
            port: broker.port, topics: ["breeze/+/location", "breeze/+/availability"],
            arguments: ["--cafile", folder + "/ca.pem"])
        #expect(await watcher.wait { $0.object("breeze/eta/location")?["city"] as? String == "Bern" })
        let refused = try await untrusted.ctl(["status"], timeout: 20) { $0.output.contains("MQTT: unreachable") }
        #expect(refused.output.contains("MQTT: unreachable"), "\(refused.output)")
        #expect(watcher.latest["breeze/theta/availability"] == nil)
        await trusted.stop()
        await untrusted.stop()
        await watcher.stop()
        await broker.stop()
    }

    @Test func breezectlFleetListsTwoDaemonsAsTwoNodes() async throws {
        let broker = try await Mosquitto()
        var daemons: [BreezedProcess] = []
        for (node, city) in [("north", "Oslo"), ("south", "Rome")] {
            daemons.append(try await BreezedProcess([
                "--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", city, "--mqtt", broker.url(),
                "--mqtt-node", node,
            ]))
        }
        let watcher = try await MQTTWatcher(port: broker.port, topics: ["breeze/+/location"])
        #expect(await watcher.wait { $0.object("breeze/north/location") != nil && $0.object("breeze/south/location") != nil })
        let json = try await BreezedProcess.breezectl(["fleet", "--mqtt", broker.url(), "--json"])
        #expect(json.status == 0, "\(json.errors)")
        let nodes = json.output.split(separator: "\n").map { object(String($0)) }
        #expect(nodes.map { $0["node"] as? String } == ["north", "south"], "\(json.output)")
        #expect(nodes.allSatisfy { $0["availability"] as? String == "online" })
        #expect(nodes.first?["place"] as? String == "Oslo, Norway")
        let text = try await BreezedProcess.breezectl(["fleet", "--mqtt", broker.url()])
        #expect(text.output.hasPrefix("NODE"), "\(text.output)")
        #expect(text.output.contains("north") && text.output.contains("Rome"), "\(text.output)")
        let nobody = try await BreezedProcess.breezectl(["fleet", "--mqtt", "mqtt://127.0.0.1:\(Mosquitto.freePort())"])
        #expect(nobody.status == 69, "\(nobody.errors)")

        // --watch: the list, then a node again when it changes.
        let output = Pipe()
        let follower = try await ChildProcess.launch(
            BreezedProcess.breezectl, ["fleet", "--mqtt", broker.url(), "--json", "--watch"], output: output)
        let lines = CollectedOutput()
        lines.collect(from: output.fileHandleForReading)
        #expect(await eventually(timeout: 20) { lines.soFar().split(separator: "\n").count >= 2 })
        let selected = try await daemons[1].ctl(["select", "Lisbon"])
        #expect(selected.status == 0)
        #expect(await eventually(timeout: 20) { lines.soFar().contains("Lisbon, Portugal") }, "\(lines.soFar())")
        let changed = lines.soFar().split(separator: "\n").map { object(String($0)) }.dropFirst(2)
        #expect(changed.allSatisfy { $0["node"] as? String == "south" }, "\(lines.soFar())")
        follower.signal(SIGTERM)
        _ = await onDedicatedThread { follower.waitUntilExit(timeout: 10) }
        for daemon in daemons { await daemon.stop() }
        await watcher.stop()
        await broker.stop()
    }
}
