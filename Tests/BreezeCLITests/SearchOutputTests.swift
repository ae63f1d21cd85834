import BreezeCLI
import BreezeCore
import BreezeProtocol
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// What `search` and `lookup` print: an empty list as JSON, a failed online search, the answer from the places
/// index while breezed is not running, distances in the unit the temperatures use, and text for a locale that is
/// not UTF-8.
@Suite struct SearchOutputTests {
    static func render(_ line: String, _ command: String, json: Bool = false) -> String {
        ReplyText.render(Array(line.utf8), command: command, json: json)
    }

    /// Runs breezectl on a thread of its own with `environment`, at most 10 seconds.
    static func breezectl(_ arguments: [String], environment: [String: String]) async -> BreezectlRun? {
        await BreezectlConnectionTests.breezectl(arguments, environment: environment)
    }

    static let nowhere = "/nonexistent/breezectl-search-test.sock"
    static let bernPlaces =
        #"{"class":"PLACES","query":"bern","online":"failed: timeout","places":[{"class":"PLACE","geoname_id":2661552,"city":"Bern","admin1":"Bern","country":"Switzerland"}],"id":3}"#

    @Test func noResultsAsJSONAreTheEmptyList() {
        let reply = #"{"class":"PLACES","query":"qqqq","online":"ok","places":[],"id":3}"#
        #expect(
            Self.render(reply, "search", json: true) == #"{"class":"PLACES","query":"qqqq","online":"ok","places":[]}"#
                + "\n")
    }

    @Test func aFailedOnlineSearchIsSaidOnStderr() async throws {
        // The text on stdout is the places alone; a failed online search is a status line, on stderr.
        #expect(Self.render(Self.bernPlaces, "search") == "2661552   Bern, Switzerland\n")
        let none = #"{"class":"PLACES","query":"qqqq","online":"failed: transport","places":[]}"#
        #expect(Self.render(none, "search") == "No cities.\n")
        let daemon = FakeDaemon { fd in
            // Answers the first request with the Bern places, under its id.
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while recv(fd, &byte, 1, 0) == 1, byte != 0x0A { line.append(byte) }
            let request = String(decoding: line, as: UTF8.self)
            let id = request.range(of: #""id":\s*[0-9]+"#, options: .regularExpression).map { String(request[$0]) } ?? ""
            FakeDaemon.write(fd, Self.bernPlaces.replacingOccurrences(of: #""id":3"#, with: id) + "\n")
            FakeDaemon.drain(fd)
        }
        defer { daemon.stop() }
        let run = try #require(await Self.breezectl(["--socket", daemon.path, "search", "bern"], environment: [:]))
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "2661552   Bern, Switzerland\n")
        #expect(run.errors == "Online search failed (timeout): offline results only.\n")
        // JSON keeps it in the object's `online`, and its lines are only PLACE objects.
        #expect(!Self.render(Self.bernPlaces, "search", json: true).contains("failed"))
    }

    /// A breezed that takes the request and never answers (stopped, or stuck): the search is answered from the
    /// places index after the timeout, as when breezed is not running, and the notice says why.
    @Test func searchAnswersFromTheIndexWhenBreezedDoesNotAnswerInTime() async throws {
        let daemon = FakeDaemon { FakeDaemon.drain($0) }
        defer { daemon.stop() }
        let run = try #require(
            await Self.breezectl(["--socket", daemon.path, "--timeout", "0.5", "search", "zurich"], environment: [:]))
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("2657896   Zürich"), "\(run.output)")
        #expect(run.errors.contains("breezed did not answer within 0.5 s; answered from the places index"), "\(run.errors)")
        // What does not only read the index still fails.
        let status = try #require(await Self.breezectl(["--socket", daemon.path, "--timeout", "0.5", "where"], environment: [:]))
        #expect(status.status == 69)
    }

    @Test func searchWithoutBreezedReadsThePlacesIndex() async throws {
        let run = try #require(await Self.breezectl(["--socket", Self.nowhere, "search", "zurich"], environment: [:]))
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("2657896   Zürich, Zurich, Switzerland\n"), "\(run.output)")
        #expect(run.errors.contains("breezed is not running; answered from the places index"), "\(run.errors)")
    }

    @Test func searchWithoutBreezedAsJSONIsWhatBreezedWouldSend() async throws {
        let found = try #require(
            await Self.breezectl(["--socket", Self.nowhere, "--json", "search", "zurich"], environment: [:]))
        let first = try JSONValue.parse(String(found.output.prefix { $0 != "\n" }))
        #expect(first["class"] == .string("PLACE") && first["geoname_id"] == .number(2_657_896), "\(found.output)")
        let none = try #require(
            await Self.breezectl(["--socket", Self.nowhere, "--json", "search", "qqqqqq"], environment: [:]))
        #expect(none.status == 0)
        #expect(none.output == #"{"class":"PLACES","query":"qqqqqq","online":"off","places":[]}"# + "\n")
    }

    @Test func lookupWithoutBreezedReadsThePlacesIndex() async throws {
        let run = try #require(
            await Self.breezectl(["--socket", Self.nowhere, "lookup", "46.948", "7.447"], environment: [:]))
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("Bern, Switzerland ("), "\(run.output)")
        #expect(run.output.hasSuffix(" km away)\n"), "\(run.output)")
        #expect(!run.errors.isEmpty)
        let outOfRange = try #require(
            await Self.breezectl(["--socket", Self.nowhere, "lookup", "91", "7"], environment: [:]))
        #expect(outOfRange.status == 64, "\(outOfRange.errors)")
    }

    @Test(arguments: ["where", "status", "select", "here"])
    func otherCommandsStillNeedBreezed(command: String) async throws {
        let arguments = ["--socket", Self.nowhere, command] + (command == "select" ? ["bern"] : [])
        let run = try #require(await Self.breezectl(arguments, environment: [:]))
        #expect(run.status == 69, "\(run.output)")
        #expect(run.output.isEmpty)
    }

    @Test func distancesAreInMilesWhereTemperaturesAreInFahrenheit() async throws {
        let american = ["LANG": "en_US.UTF-8"]
        let miles = try #require(
            await Self.breezectl(["--socket", Self.nowhere, "lookup", "46.948", "7.447"], environment: american))
        #expect(
            miles.output.hasPrefix("Bern, Switzerland (") && miles.output.hasSuffix(" mi away)\n"), "\(miles.output)")
        let kilometres = try #require(
            await Self.breezectl(
                ["--socket", Self.nowhere, "--units", "c", "lookup", "46.948", "7.447"], environment: american))
        #expect(kilometres.output.hasSuffix(" km away)\n"), "\(kilometres.output)")
        let forced = try #require(
            await Self.breezectl(
                ["--socket", Self.nowhere, "--units", "f", "lookup", "46.948", "7.447"],
                environment: ["LANG": "de_CH.UTF-8"]))
        #expect(forced.output.hasSuffix(" mi away)\n"), "\(forced.output)")
    }

    @Test func theSelectedCityOutsideAUTF8LocaleIsInASCIISymbols() async throws {
        let reply =
            #"{"class":"LOCATION","name":"Zürich, Switzerland","source":"manual","latitude":47.36667,"longitude":8.55,"accuracy":12,"distance_m":260,"id":1}"#
        let daemon = FakeDaemon { fd in
            // The request line first, then the reply, then whatever else until breezectl hangs up.
            var byte: UInt8 = 0
            while recv(fd, &byte, 1, 0) == 1, byte != UInt8(ascii: "\n") {}
            FakeDaemon.write(fd, reply + "\n")
            FakeDaemon.drain(fd)
        }
        defer { daemon.stop() }
        let plain = try #require(
            await Self.breezectl(["--socket", daemon.path, "select", "zurich"], environment: ["LANG": "C"]))
        #expect(
            plain.output == "Zürich, Switzerland - manual\n  47.36667, 8.55000 +/-12 m - 0.3 km from the centre\n",
            "\(plain.status) \(plain.output) \(plain.errors)")
        let utf8 = try #require(
            await Self.breezectl(["--socket", daemon.path, "select", "zurich"], environment: ["LC_ALL": "en_US.UTF-8"]))
        #expect(
            utf8.output == "Zürich, Switzerland · manual\n  47.36667, 8.55000 ±39 ft · 0.2 mi from the centre\n",
            "\(utf8.status) \(utf8.output) \(utf8.errors)")
        // JSON is for programs: as breezed sent it, whatever the locale.
        let json = try #require(
            await Self.breezectl(["--socket", daemon.path, "--json", "select", "zurich"], environment: ["LANG": "C"]))
        #expect(
            json.output.contains("Zürich") && json.output.contains("47.36667"),
            "\(json.status) \(json.output) \(json.errors)")
    }

    /// Under LANG=C every symbol breezectl prints is ASCII: the pollutants' subscripts too, and a dropped emoji
    /// leaves no blank behind.
    @Test func theAirOutsideAUTF8LocaleIsASCIIWithoutBlanks() async throws {
        let air =
            #"{"class":"AIR","state":"fresh","us_aqi":42,"label":"Good","emoji":"🙂","summary":"Air is fine.","pollutants":[{"code":"nitrogen_dioxide","symbol":"NO₂","value":12.5,"status":"good"},{"code":"ozone","symbol":"O₃","value":60,"status":"good"}]"#
        let daemon = FakeDaemon { fd in
            // status, then version: each answered with its own id.
            var line: [UInt8] = []
            var byte: UInt8 = 0
            var answered = 0
            while answered < 2, recv(fd, &byte, 1, 0) == 1 {
                guard byte == UInt8(ascii: "\n") else {
                    line.append(byte)
                    continue
                }
                let text = String(decoding: line, as: UTF8.self)
                line = []
                let id = text.split(separator: ":").last.map { $0.filter(\.isNumber) } ?? "0"
                FakeDaemon.write(
                    fd,
                    text.contains("\"status\"")
                        ? air + #","id":\#(id)}"# + "\n" : #"{"class":"VERSION","release":"0.1.0","id":\#(id)}"# + "\n")
                answered += 1
            }
            FakeDaemon.drain(fd)
        }
        defer { daemon.stop() }
        let run = try #require(await Self.breezectl(["--socket", daemon.path, "air"], environment: ["LANG": "C"]))
        #expect(run.output.unicodeScalars.allSatisfy { $0.isASCII }, "\(run.output)")
        #expect(run.output.contains("NO2") && run.output.contains("O3"), "\(run.output)")
        // "  🙂 AQI 42 Good · Air is fine." in UTF-8: the emoji goes with the space after it.
        #expect(
            run.output == "Air quality (fresh)\n  AQI 42 Good -- Air is fine.\n  NO2      12.5 ug/m3  good\n"
                + "  O3       60.0 ug/m3  good\n", "\(run.output)")
    }

    @Test func statusBarCoordinatesHaveAtMostFourDecimals() {
        let location =
            #"{"class":"LOCATION","name":"Adelboden, Switzerland","latitude":46.510596667,"longitude":7.567402,"source":"gpsd","state":"authorized"}"#
        #expect(ReplyText.statusBar([location], format: "{latitude},{longitude}", now: 0) == "46.5106,7.5674\n")
    }
}
