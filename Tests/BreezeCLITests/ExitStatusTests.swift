import BreezeCLI
import Foundation
import Testing

/// breezectl's exit statuses for the datasets and `refresh`, against a daemon that answers as scripted.
@Suite struct BreezectlExitStatusTests {
    static let bern = #"{"class":"LOCATION","name":"Bern, Switzerland","geoname_id":2661552"#

    /// A daemon answering `status` (id 1) with `objects` and `version` (id 2).
    static func snapshot(_ objects: [String]) -> FakeDaemon {
        FakeDaemon { fd in
            for object in objects { FakeDaemon.write(fd, object + #","id":1}"# + "\n") }
            FakeDaemon.write(fd, #"{"class":"VERSION","proto_major":1,"proto_minor":2,"id":2}"# + "\n")
            FakeDaemon.drain(fd)
        }
    }

    @Test(arguments: [
        (#"{"class":"AIR","state":"fresh","us_aqi":26"#, Int32(0), ""),
        (#"{"class":"AIR","state":"stale","reason":"transport: timed out","us_aqi":26"#, 0, ""),
        (#"{"class":"AIR","state":"loading""#, 75, "no air-quality data yet"),
        (#"{"class":"AIR","state":"failed","reason":"server-error: HTTP 500""#, 75, "the fetch failed: server-error: HTTP 500"),
        (#"{"class":"AIR","state":"unavailable","reason":"no station near""#, 69, "no air-quality data for this place: no station near"),
        (#"{"class":"AIR","state":"offline","reason":"web requests are off (--offline)""#, 69, "web requests are off (--offline)"),
    ])
    func airExitsZeroOnlyWithData(air: String, status: Int32, reason: String) async throws {
        let daemon = Self.snapshot([Self.bern, air])
        defer { daemon.stop() }
        for json in [false, true] {
            let run = try #require(await BreezectlConnectionTests.breezectl(
                ["--socket", daemon.path] + (json ? ["--json"] : []) + ["air"]), "breezectl hung")
            #expect(run.status == status, "\(air): \(run.errors)")
            #expect(reason.isEmpty || run.errors.contains(reason), "\(air): \(run.errors)")
            #expect(status == 0 ? run.errors.isEmpty : !run.errors.isEmpty)
            #expect(json ? run.output.hasPrefix(#"{"class":"AIR""#) : run.output.hasPrefix("Air quality"), "\(run.output)")
        }
    }

    @Test func aDatasetWithNoPlaceYetExits75() async throws {
        let daemon = Self.snapshot([#"{"class":"LOCATION","state":"denied","name":null,"geoname_id":null"#])
        defer { daemon.stop() }
        for subcommand in ["air", "pollen", "climate", "weather"] {
            let run = try #require(await BreezectlConnectionTests.breezectl(["--socket", daemon.path, subcommand]))
            #expect(run.status == 75, "\(subcommand): \(run.errors)")
            #expect(run.errors.contains("no place yet"), "\(subcommand): \(run.errors)")
        }
        let status = try #require(await BreezectlConnectionTests.breezectl(["--socket", daemon.path, "status"]))
        #expect(status.status == 0, "status shows what there is: \(status.errors)")
    }

    /// A daemon answering `refresh` (id 1) with `reply`.
    static func refreshing(_ reply: String) -> FakeDaemon {
        FakeDaemon { fd in
            FakeDaemon.write(fd, reply + "\n")
            FakeDaemon.drain(fd)
        }
    }

    static func datasets(_ states: [String]) -> String {
        let entries = zip(["AIR", "POLLEN", "CLIMATE", "WEATHER"], states).map { #"{"class":"\#($0)",\#($1)}"# }
        return #"{"class":"OK","command":"refresh","datasets":["# + entries.joined(separator: ",") + #"],"id":1}"#
    }

    @Test func refreshExitsZeroWhenEveryDatasetAnswered() async throws {
        let daemon = Self.refreshing(Self.datasets([
            #""state":"fresh""#, #""state":"unavailable","reason":"pollen outside Europe""#, #""state":"fresh""#,
            #""state":"fresh""#,
        ]))
        defer { daemon.stop() }
        let run = try #require(await BreezectlConnectionTests.breezectl(["--socket", daemon.path, "refresh"]))
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("POLLEN   unavailable: pollen outside Europe"), "\(run.output)")
        #expect(run.errors.isEmpty)
    }

    @Test func refreshExits75NamingEachDatasetThatFailed() async throws {
        let daemon = Self.refreshing(Self.datasets([
            #""state":"fresh""#, #""state":"failed","reason":"server-error: HTTP 500""#,
            #""state":"stale","reason":"transport: timed out""#, #""state":"fresh""#,
        ]))
        defer { daemon.stop() }
        let run = try #require(await BreezectlConnectionTests.breezectl(["--socket", daemon.path, "refresh"]))
        #expect(run.status == 75, "\(run.errors)")
        #expect(run.errors.contains(
            "the refresh failed for POLLEN (server-error: HTTP 500), CLIMATE (transport: timed out)"), "\(run.errors)")
        #expect(!run.errors.contains("AIR") && !run.errors.contains("WEATHER"))
        #expect(run.output.contains("AIR, WEATHER fresh"), "what each answered is printed too, alike answers on one line: \(run.output)")
    }

    @Test func refreshExits69WhenBreezedsOwnLimitPassed() async throws {
        let daemon = Self.refreshing(Self.datasets([
            #""state":"fresh""#, #""state":"loading""#, #""state":"fresh""#, #""state":"fresh""#,
        ]))
        defer { daemon.stop() }
        let run = try #require(await BreezectlConnectionTests.breezectl(["--socket", daemon.path, "refresh"]))
        #expect(run.status == 69, "\(run.errors)")
        #expect(run.errors.contains("no answer for POLLEN"), "\(run.errors)")
    }

    /// On a terminal a progress line shows while it waits, and is erased; off one, nothing but the result.
    @Test(arguments: [true, false])
    func refreshTimesOutWith69AndAProgressLineOnlyOnATerminal(isTerminal: Bool) async throws {
        let daemon = FakeDaemon { FakeDaemon.drain($0) }
        defer { daemon.stop() }
        let run = try #require(await BreezectlConnectionTests.breezectl(
            ["--socket", daemon.path, "--timeout", "0.5", "refresh"], isTerminal: isTerminal), "breezectl hung")
        #expect(run.status == 69)
        #expect(run.errors.contains("the refresh did not finish within 0.5 s"), "\(run.errors)")
        if isTerminal {
            #expect(run.output == "Refreshing the data (waiting up to 0.5 s)…\r\u{1B}[K", "\(run.output)")
        } else {
            #expect(run.output.isEmpty, "\(run.output)")
        }
    }
}
