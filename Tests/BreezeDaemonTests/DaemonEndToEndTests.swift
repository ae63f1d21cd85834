import BreezeDaemon
import BreezePlaces
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A saved-city change sent when the daemon was killed.
enum InFlight: Sendable {
    case add(String)
    case remove(Int)
}

/// breezed and breezectl as built, against a real gpsd replaying a drive and the loopback web fixture.
@Suite(.serialized)
struct DaemonEndToEndTests {
    static let drive = BreezedProcess.root + "/data/drives/adelboden-frutigen.nmea"
    static let citySearch = CitySearch(index: try! PlacesIndex(path: PlacesIndexLocation.sourceTreeIndex))

    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
    func aReplayedDriveIsNamedAndLookupAnswers() async throws {
        let port = GPSFake.freePort()
        let gpsd = try await GPSFake(log: Self.drive, port: port, once: false, interval: 0.02)
        let daemon = try await BreezedProcess(["--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline"])
        let named = try await daemon.ctl(["where", "--json"], timeout: 60) { object($0.output)["city"] as? String == "Frutigen" }
        let location = object(named.output)
        #expect(named.status == 0)
        #expect(location["name"] as? String == "Frutigen, Switzerland")
        #expect(location["country"] as? String == "Switzerland")
        #expect(location["country_code"] as? String == "CH")
        #expect(location["source"] as? String == "gpsd")
        #expect(location["state"] as? String == "authorized")
        #expect((location["latitude"] as? Double).map { abs($0 - 46.5877) < 0.05 } == true)
        #expect(location["longitude"] is Double)

        let lookup = try await daemon.ctl(["lookup", "-33.8688", "151.2093", "--json"])
        let place = object(lookup.output)
        #expect(lookup.status == 0, "\(lookup.errors)")
        #expect(place["name"] as? String == "Sydney, Australia")
        #expect(place["city"] as? String == "Sydney")
        #expect(place["country_code"] as? String == "AU")
        #expect((place["distance_m"] as? Double).map { $0 < 2_000 } == true)

        let air = try await daemon.ctl(["air", "--json"])
        #expect(object(air.output)["state"] as? String == "offline")
        await daemon.stop()
        await gpsd.stop()
        #expect(await daemon.exitStatus() == 0)
    }

    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd and gpsfake"))
    func onlineReverseGeocodingNamesThePositionThroughNominatim() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let folder = try BreezedProcess.makeFolder()
        try "[location]\nonline_reverse_geocoding=true\n".write(toFile: folder + "/breezed.conf", atomically: true, encoding: .utf8)
        let port = GPSFake.freePort()
        let gpsd = try await GPSFake(log: Self.drive, port: port, once: false, interval: 0.02)
        let daemon = try await BreezedProcess(folder: folder, [
            "--config", folder + "/breezed.conf", "--gpsd", "127.0.0.1:\(port)", "--no-geoclue",
            "--api-base", fixture.baseURL.absoluteString,
        ])
        let named = try await daemon.ctl(["where", "--json"], timeout: 60) { object($0.output)["city"] as? String == "Fixture Town" }
        let location = object(named.output)
        #expect(location["name"] as? String == "Fixture Town, Fixture Land", "\(named.output)")
        #expect(location["country_code"] as? String == "FX")
        #expect(location["source"] as? String == "gpsd")
        let requests = try await fixture.requests().filter { $0.path == "/reverse" }
        #expect(!requests.isEmpty)
        // Nominatim's policy: at most one request a second.
        let starts = requests.map(\.start).sorted()
        #expect(zip(starts.dropFirst(), starts).allSatisfy { $0 - $1 >= 0.99 }, "\(starts)")
        await daemon.stop()
        await gpsd.stop()
    }

    @Test func airComesFromTheFixtureAndSelectSwitchesToManual() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let daemon = try await BreezedProcess([
            "--no-gpsd", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString, "--fallback-city", "Bern",
        ])
        let air = try await daemon.ctl(["air", "--json"], timeout: 30) { object($0.output)["state"] as? String == "fresh" }
        let airObject = object(air.output)
        #expect(airObject["class"] as? String == "AIR")
        #expect(airObject["us_aqi"] as? Double == 26)
        #expect(airObject["place"] as? String == "Bern, Switzerland")

        let selected = try await daemon.ctl(["select", "Zurich"])
        #expect(selected.status == 0, "\(selected.errors)")
        let location = object(try await daemon.ctl(["where", "--json"]).output)
        #expect(location["city"] as? String == "Zürich")
        #expect(location["source"] as? String == "manual")
        let zurichAir = try await daemon.ctl(["air", "--json"], timeout: 30) {
            object($0.output)["place"] as? String == "Zürich, Switzerland" && object($0.output)["state"] as? String == "fresh"
        }
        #expect(object(zurichAir.output)["us_aqi"] as? Double == 27)

        let fahrenheit = try await daemon.ctl(["climate", "--units", "f"], timeout: 30) { $0.output.contains("°F") }
        #expect(fahrenheit.output.contains("°F") && !fahrenheit.output.contains("°C"), "\(fahrenheit.output)")
        let celsius = try await BreezedProcess.breezectl(["--socket", daemon.socket, "climate"], environment: ["LANG": "de_CH.UTF-8"])
        #expect(celsius.output.contains("°C"), "\(celsius.output)")
        let american = try await BreezedProcess.breezectl(["--socket", daemon.socket, "climate"], environment: ["LANG": "en_US.UTF-8", "LC_ALL": "en_US.UTF-8"])
        #expect(american.output.contains("°F"), "\(american.output)")

        // The weather for Zürich (47.37° N): the fixture's 4 + latitude/10 °C, WMO code 95 at 47°.
        let weather = try await daemon.ctl(["weather", "--json"], timeout: 30) {
            object($0.output)["place"] as? String == "Zürich, Switzerland" && object($0.output)["state"] as? String == "fresh"
        }
        #expect(object(weather.output)["temperature_c"] as? Double == 8.7)
        #expect(object(weather.output)["condition"] as? String == "Thunderstorm")
        #expect((object(weather.output)["daily"] as? [Any])?.count == 7)
        let weatherText = try await daemon.ctl(["weather", "--units", "f"])
        #expect(weatherText.output.contains("47.7°F Thunderstorm"), "\(weatherText.output)")

        let here = try await daemon.ctl(["here", "--json"])
        #expect(object(here.output)["city"] as? String == "Bern")
        let missing = try await daemon.ctl(["select", "Qxqxqxqx"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no city matches"))
        let status = try await daemon.ctl(["status"])
        #expect(status.status == 0)
        #expect(status.output.contains("Bern, Switzerland"))
        #expect(status.output.contains("AQI 26"))
        await daemon.stop()
    }

    @Test func dataComesOverHTTPSOnlyFromAServerTheConfiguredAuthoritySigned() async throws {
        let folder = try BreezedProcess.makeFolder()
        try await TestCertificates.make(in: folder)
        let fixture = try await WebFixture(certificate: folder + "/server.pem", key: folder + "/server.key")
        defer { fixture.stop() }
        #expect(fixture.baseURL.scheme == "https")
        for (authority, trusted) in [("other-ca.pem", false), ("ca.pem", true)] {
            let run = folder + "/" + authority.dropLast(4)
            try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: false)
            try "[data]\nca_file=\(folder)/\(authority)\n".write(toFile: run + "/breezed.conf", atomically: true, encoding: .utf8)
            let daemon = try await BreezedProcess(folder: run, [
                "--config", run + "/breezed.conf", "--no-gpsd", "--no-geoclue", "--api-base", fixture.baseURL.absoluteString,
                "--fallback-city", "Bern",
            ])
            let air = try await daemon.ctl(["air", "--json"], timeout: 30) {
                ["fresh", "failed"].contains(object($0.output)["state"] as? String)
            }
            let airObject = object(air.output)
            if trusted {
                #expect(airObject["state"] as? String == "fresh", "\(air.output)")
                #expect(airObject["us_aqi"] as? Double == 26)
            } else {
                #expect(airObject["state"] as? String == "failed", "\(air.output)")
                #expect((airObject["reason"] as? String)?.contains("certificate is not trusted") == true, "\(air.output)")
            }
            await daemon.stop()
        }
    }

    @Test func aSocketPassedAsSystemdDoesIsUsed() async throws {
        // As systemd does: the listening socket is descriptor 3, LISTEN_FDS=1 and LISTEN_PID is the daemon's pid.
        let wrapper = """
            import os, signal, socket, sys
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            path = sys.argv[sys.argv.index('--socket') + 1]
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(path)
            listener.listen(64)
            if listener.fileno() != 3:
                os.dup2(listener.fileno(), 3)
            os.set_inheritable(3, True)
            os.environ['LISTEN_FDS'] = '1'
            os.environ['LISTEN_PID'] = str(os.getpid())
            os.execv(sys.argv[1], sys.argv[1:])
            """
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Oslo"], wrapper: wrapper)
        let location = try await daemon.ctl(["where", "--json"], timeout: 20) { object($0.output)["city"] != nil }
        #expect(object(location.output)["city"] as? String == "Oslo")
        await daemon.stop()
        #expect(await daemon.exitStatus() == 0)
        #expect(daemon.log().contains("socket.inherited fd=3"))
    }

    @Test func sigtermWithAHundredWatchersTellsThemAndExitsCleanly() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let socket = daemon.socket
        let clients = await onDedicatedThread { () -> [LineClient] in
            (0..<100).compactMap { _ in
                guard let client = LineClient(path: socket), client.send("{\"command\":\"watch\",\"id\":1}") else { return nil }
                _ = client.reply(id: 1)
                return client
            }
        }
        #expect(clients.count == 100)
        let started = ContinuousClock.now
        daemon.signal(SIGTERM)
        let status = await daemon.exitStatus(timeout: 10)
        let elapsed = ContinuousClock.now - started
        #expect(status == 0)
        #expect(elapsed < .seconds(5), "stopped in \(elapsed)")
        let told = await onDedicatedThread { () -> Int in
            clients.filter { client in
                var sawGoodbye = false
                while let line = client.line() { if line.contains("shutting-down") { sawGoodbye = true } }
                return sawGoodbye
            }.count
        }
        #expect(told == 100)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed")
    }

    @Test func sigkillDuringSavedCityChangesNeverLosesAnAcknowledgedChange() async throws {
        let folder = try BreezedProcess.makeFolder()
        let cities = [
            "Oslo", "Bern", "Paris", "Madrid", "Rome", "Vienna", "Prague", "Warsaw", "Lisbon", "Dublin", "London",
            "Berlin", "Athens", "Sofia", "Riga", "Tallinn", "Vilnius", "Helsinki", "Stockholm", "Copenhagen",
            "Budapest", "Zagreb", "Belgrade", "Bucharest", "Kyiv", "Minsk", "Ankara", "Cairo", "Tokyo", "Seoul",
        ]
        var random = SplitMix64(seed: 42)
        var acknowledgedTotal = 0
        for round in 0..<50 {
            let daemon = try await BreezedProcess(folder: folder, ["--no-gpsd", "--no-geoclue", "--offline"])
            let killAfter = Int(random.next() % 12) + 1
            let socket = daemon.socket
            let pid = daemon.process.processIdentifier
            let offset = Int(random.next() % UInt64(cities.count))
            // Add and remove cities; after `killAfter` acknowledgements, SIGKILL while the next request is in flight.
            // Returns the last acknowledged list and the request that was in flight when the daemon died.
            let outcome = await onDedicatedThread { () -> (acknowledged: [Int], inFlight: InFlight?)? in
                guard let client = LineClient(path: socket) else { return nil }
                var saved: [Int]?
                for step in 0..<40 {
                    let city = cities[(offset + step) % cities.count]
                    let removing = step % 3 == 2 && saved?.isEmpty == false ? saved!.last! : nil
                    let request = removing.map {
                        "{\"command\":\"saved\",\"action\":\"remove\",\"city\":\($0),\"id\":\(step + 1)}"
                    } ?? "{\"command\":\"saved\",\"action\":\"add\",\"query\":\"\(city)\",\"id\":\(step + 1)}"
                    let inFlight = removing.map(InFlight.remove) ?? .add(city)
                    guard client.send(request) else { return saved.map { ($0, inFlight) } }
                    if step == killAfter { kill(pid, SIGKILL) }
                    guard let reply = client.reply(id: step + 1),
                        let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
                        let places = object["places"] as? [[String: Any]]
                    else { return saved.map { ($0, inFlight) } }
                    saved = places.compactMap { $0["geoname_id"] as? Int }
                }
                return saved.map { ($0, nil) }
            }
            // Killed mid-burst above; if the burst ended early (a reply timed out), kill it now: one daemon per folder.
            daemon.signal(SIGKILL)
            _ = await daemon.exitStatus(timeout: 10)
            let loaded = StateStore(folder: folder + "/state").load()
            #expect(loaded.problem == nil, "round \(round): \(loaded.problem ?? "")")
            guard let outcome else { continue }
            acknowledgedTotal += 1
            // On disk: the last acknowledged list, or that list with the in-flight change applied (the daemon may
            // have saved it and died before answering). Never less than what was acknowledged, never a mix.
            let onDisk = loaded.state.saved.map(\.id)
            let acknowledged = outcome.acknowledged
            var allowed = [acknowledged]
            switch outcome.inFlight {
            case .add(let city)?:
                // The city the daemon's search gives first, looked up here in the same index, not read off the disk.
                let id = try #require(Self.citySearch.search(city, limit: 1).first?.place.id, "\(city) is in the index")
                allowed.append(acknowledged.contains(id) ? acknowledged : acknowledged + [id])
            case .remove(let id)?: allowed.append(acknowledged.filter { $0 != id })
            case nil: break
            }
            #expect(allowed.contains(onDisk), "round \(round): on disk \(onDisk), acknowledged \(acknowledged), in flight \(String(describing: outcome.inFlight))")
        }
        #expect(acknowledgedTotal >= 45)
    }

    @Test func aCorruptStateFileIsMovedAsideAndDefaultsUsed() async throws {
        let folder = try BreezedProcess.makeFolder()
        try FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
        try Data("{\"version\":1,\"saved\":[{\"id\":26".utf8).write(to: URL(fileURLWithPath: folder + "/state/state.json"))
        let daemon = try await BreezedProcess(folder: folder, ["--no-gpsd", "--no-geoclue", "--offline"])
        let saved = try await daemon.ctl(["saved", "--json"])
        #expect(saved.status == 0, "\(saved.errors)")
        #expect(saved.output.isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/state")
        #expect(names.contains { $0.hasPrefix("state.json.corrupt-") }, "\(names)")
        let added = try await daemon.ctl(["saved", "add", "Oslo"])
        #expect(added.status == 0)
        await daemon.stop()
        #expect(daemon.log().contains("state.corrupt"))
        #expect(StateStore(folder: folder + "/state").load().state.saved.map(\.name) == ["Oslo"])
    }

    @Test func aBadConfigurationLineStopsTheStartWithFileAndLine() async throws {
        let folder = try BreezedProcess.makeFolder()
        let config = folder + "/breezed.conf"
        try "# test\n[gpsd]\naddress=nowhere:port\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await BreezedProcess(folder: folder, ["--config", config], waitForSocket: false)
        #expect(await daemon.exitStatus() == 78)
        let log = daemon.log()
        #expect(log.contains("\(config):3: [gpsd] address: expected HOST:PORT"), "\(shortened(log))")
        #expect(log.contains(" error: config.invalid "), "for people, not the journal: \(shortened(log))")

        try "[socket]\npath=/tmp/x.sock\ncolour=blue\n".write(toFile: config, atomically: true, encoding: .utf8)
        let second = try await BreezedProcess(folder: folder, ["--config", config], waitForSocket: false)
        #expect(await second.exitStatus() == 78)
        #expect(second.log().contains("\(config):3: [socket] colour: unknown setting"))
    }

    @Test func sighupRereadsTheConfigurationAndABadOneIsRefused() async throws {
        let folder = try BreezedProcess.makeFolder()
        let config = folder + "/breezed.conf"
        try "[location]\nfallback_city=Oslo\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await BreezedProcess(folder: folder, ["--config", config, "--no-gpsd", "--no-geoclue", "--offline"])
        #expect(object(try await daemon.ctl(["where", "--json"], timeout: 10) { object($0.output)["city"] != nil }.output)["city"] as? String == "Oslo")
        try "[location]\nfallback_city=Lisbon\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let moved = try await daemon.ctl(["where", "--json"], timeout: 10) { object($0.output)["city"] as? String == "Lisbon" }
        #expect(object(moved.output)["city"] as? String == "Lisbon")
        try "[location]\nfallback_city=Rome\nbogus\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(await daemon.waitForLog("config.reload_failed"), "the bad configuration is refused")
        #expect(daemon.process.isRunning)
        #expect(object(try await daemon.ctl(["where", "--json"]).output)["city"] as? String == "Lisbon")
        await daemon.stop()
        #expect(daemon.log().contains("config.reload_failed"))
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func anotherUserMayReadButNotChangeAndSeesCityLevelCoordinates() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        chmod(daemon.folder, 0o755)
        chmod(daemon.socket, 0o666)
        let read = try await BreezedProcess.breezectl(["--socket", daemon.socket, "where", "--json"], asUser: "65534")
        #expect(read.status == 0, "\(read.errors)")
        let latitude = try #require(object(read.output)["latitude"] as? Double)
        #expect(abs(latitude * 100 - (latitude * 100).rounded()) < 1e-6, "rounded to 2 decimals: \(latitude)")
        let change = try await BreezedProcess.breezectl(["--socket", daemon.socket, "select", "Oslo"], asUser: "65534")
        #expect(change.status == 77)
        #expect(change.errors.contains("changes breezed's state"))
        await daemon.stop()
    }

    /// What systemd/breezed.service asks of the daemon, applied without systemd (Tests/Fixtures/hardened-exec.py):
    /// a read-only system but for its folders, no new privileges, memory-deny-write-execute and the system-call
    /// filter. The daemon must still name places, fetch data and stop cleanly.
    @Test(.enabled(if: getuid() == 0, "needs root for a mount namespace and seccomp"))
    func runsUnderTheUnitsRestrictions() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let folder = try BreezedProcess.makeFolder()
        let script = BreezedProcess.root + "/Tests/Fixtures/hardened-exec.py"
        let wrapper = """
            import os, sys
            os.execv('/usr/bin/python3', ['python3', '\(script)', '\(folder)'] + sys.argv[1:])
            """
        // With GeoClue on a private bus where it can run (root, geoclue-2.0), so D-Bus is exercised too.
        let rig = GeoClueRig.isAvailable ? try await GeoClueRig() : nil
        rig?.fix(46.4929, 7.5607)
        let daemon = try await BreezedProcess(
            folder: folder,
            ["--no-gpsd", "--api-base", fixture.baseURL.absoluteString, "--fallback-city", "Bern"]
                + (rig == nil ? ["--no-geoclue"] : []),
            environment: rig.map { ["DBUS_SYSTEM_BUS_ADDRESS": $0.busAddress] } ?? [:], wrapper: wrapper)
        let air = try await daemon.ctl(["air", "--json"], timeout: 30) { object($0.output)["state"] as? String == "fresh" }
        #expect(object(air.output)["us_aqi"] as? Double == 26, "\(air.output) \(air.errors)")
        // The restrictions are in force on the daemon itself.
        let pid = daemon.process.processIdentifier
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.contains("Seccomp:\t2"), "a seccomp filter")
        #expect(status.contains("NoNewPrivs:\t1"))
        let mounts = try String(contentsOfFile: "/proc/\(pid)/mountinfo", encoding: .utf8).split(separator: "\n")
        #expect(mounts.contains { $0.split(separator: " ")[4] == "/" && $0.split(separator: " ")[5].hasPrefix("ro") },
                "/ is read-only")
        let lookup = try await daemon.ctl(["lookup", "-33.8688", "151.2093", "--json"])
        #expect(object(lookup.output)["city"] as? String == "Sydney")
        if let rig {
            // D-Bus from inside the read-only system: GeoClue's position names the place.
            let located = try await daemon.ctl(["where", "--json"], timeout: 30) { object($0.output)["source"] as? String == "geoclue" }
            #expect(object(located.output)["city"] as? String == "Adelboden", "\(located.output)")
            _ = rig
        }
        let saved = try await daemon.ctl(["saved", "add", "Oslo"])
        #expect(saved.status == 0, "\(saved.errors)")
        await daemon.stop()
        #expect(daemon.process.terminationStatus == 0, "\(shortened(daemon.log()))")
        #expect(daemon.process.terminationReason == .exit)
        #expect(StateStore(folder: folder + "/state").load().state.saved.map(\.name) == ["Oslo"])
        await rig?.stop()
    }
}
