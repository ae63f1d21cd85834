import BreezeCLI
import BreezeCore
import BreezeProtocol
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// breezectl's command line: what it refuses before connecting (exit 64 with a hint), what it prints without a
/// daemon (help, version), and the request each subcommand sends.
@Suite struct ArgumentTests {
    /// Runs breezectl to the end on this thread: for runs that never wait on a daemon.
    static func run(_ arguments: [String], environment: [String: String] = [:]) -> BreezectlRun {
        let output = Collected()
        let errors = Collected()
        let status = BreezeCTL.main(
            arguments, environment: .init(environment), isTerminal: false,
            output: TextOutput(standard: { output.append($0) }, error: { errors.append($0) }))
        return BreezectlRun(status: status, output: output.value, errors: errors.value)
    }

    static let nowhere = "/nonexistent/breezectl-test.sock"

    @Test(arguments: [
        ([], "a subcommand is needed"),
        (["fly"], "unknown subcommand \"fly\""),
        (["--bogus", "status"], "unknown option \"--bogus\""),
        (["--jsno", "status"], "unknown option \"--jsno\"; did you mean --json?"),
        (["watch", "--wayabr"], "unknown option \"--wayabr\"; did you mean --waybar?"),
        (["--unit", "f", "status"], "unknown option \"--unit\"; did you mean --units?"),
        (["where", "extra"], "usage: breezectl where"),
        (["search"], "usage: breezectl search <query>"),
        (["search", " x "], "a search needs at least 2 characters"),
        (["lookup", "46.9"], "lookup takes a latitude and a longitude in degrees, such as 47.37 8.54 or 47.37,8.54; got \"46.9\""),
        (["lookup", "north", "7.4"], "lookup takes a latitude and a longitude in degrees, such as 47.37 8.54 or 47.37,8.54; got \"north 7.4\""),
        (["lookup", "nan", "0"], "lookup takes a latitude and a longitude in degrees, such as 47.37 8.54 or 47.37,8.54; got \"nan 0\""),
        (["lookup", "47.4,8.6,1"], "lookup takes a latitude and a longitude in degrees, such as 47.37 8.54 or 47.37,8.54; got \"47.4,8.6,1\""),
        (["lookup", "1", "2", "3"], "usage: breezectl lookup <latitude> <longitude>"),
        (["saved", "rm"], "usage: breezectl saved [list | add <id-or-query> | remove|rm <id-or-name>]"),
        (["location", "maybe"], "location takes on or off, not \"maybe\""),
        (["saved", "clear"], "saved takes list, add, remove or rm, not \"clear\""),
        (["select", "0"], "0 is not a GeoNames id (they are whole numbers from 1); 'breezectl search NAME' lists places with their ids"),
        (["weather", "0"], "0 is not a GeoNames id (they are whole numbers from 1); 'breezectl search NAME' lists places with their ids"),
        (["saved", "add", "-3"], "-3 is not a GeoNames id (they are whole numbers from 1); 'breezectl search NAME' lists places with their ids"),
        (["saved", "add"], "usage: breezectl saved [list | add <id-or-query> | remove|rm <id-or-name>]"),
        (["saved", "list", "x"], "usage: breezectl saved [list | add <id-or-query> | remove|rm <id-or-name>]"),
        (["saved", "list", "x", "y"], "usage: breezectl saved [list | add <id-or-query> | remove|rm <id-or-name>]"),
        (["stauts"], "unknown subcommand \"stauts\"; did you mean status?"),
        (["serach", "zur"], "unknown subcommand \"serach\"; did you mean search?"),
        (["help", "wathc"], "unknown subcommand \"wathc\"; did you mean watch?"),
        (["Popular"], "unknown subcommand \"Popular\"; did you mean popular?"),
        (["lookup", "--", "47.4"], "lookup takes a latitude and a longitude in degrees, such as 47.37 8.54 or 47.37,8.54; got \"47.4\""),
        (["status", "--interactive"], "--interactive goes with search"),
        (["search", "--interactive"], "search --interactive needs a terminal on standard input and output"),
        (["search", "--interactive", "--json"], "search --interactive is a view: not with --json"),
        (["search", "--interactive", "zur"], "search --interactive takes no query: type it in the view"),
        (["--units", "k", "air"], "--units is c or f, not \"k\""),
        (["--timeout", "0", "air"], "--timeout is a number of seconds above 0 and up to 86400, not \"0\""),
        (["--timeout", "86401", "air"], "--timeout is a number of seconds above 0 and up to 86400, not \"86401\""),
        (["--timeout", "nan", "air"], "--timeout is a number of seconds above 0 and up to 86400, not \"nan\""),
        (["--timeout"], "--timeout needs a value"),
        (["--format", "{aqi}", "air"], "--format goes with watch, status and where"),
        (["--waybar", "status"], "--waybar, --i3bar and --once go with watch"),
        (["--once", "status"], "--waybar, --i3bar and --once go with watch"),
        (["watch", "--once", "--count", "2"], "--once and --count: one or the other"),
        (["watch", "--count", "0"], "--count is a whole number above 0, not \"0\""),
        (["search", "--count", "51", "san"], "search --count is at most 50, not 51"),
        (["status", "--count", "3"], "--count goes with watch (lines) and search (places)"),
        (["watch", "--waybar", "--i3bar"], "--waybar and --i3bar: one or the other"),
        (["watch", "--once", "--json"], "--once prints one line: not with --json (breezectl --json status prints the objects)"),
        (["watch", "--once", "--json", "--waybar"], "--once prints one line: not with --json (breezectl --json status prints the objects)"),
        (["fleet", "--config", "/nonexistent/breezed.conf"], "cannot read /nonexistent/breezed.conf: it does not exist"),
        (["fleet", "--watch", "--config", "/dev/null"],
         "fleet needs the broker: breezectl fleet --mqtt mqtt://host[:port], or [mqtt] url in /dev/null"),
        (["fleet", "--mqtt", "mqtt://broker.lan", "--config", "/dev/null"], "--mqtt and --config: one or the other"),
        (["--mqtt", "mqtt://broker.lan", "status"], "--mqtt, --ca-file, --config and --watch go with fleet"),
        (["--config", "/dev/null", "status"], "--mqtt, --ca-file, --config and --watch go with fleet"),
        (["air", "--watch"], "--mqtt, --ca-file, --config and --watch go with fleet"),
        (["fleet", "--mqtt", "mqtt://broker.lan", "extra"],
         "usage: breezectl fleet [--mqtt <url> | --config <path>] [--ca-file <path>] [--json] [--watch]"),
        (["fleet", "--mqtt", "http://broker.lan"],
         "--mqtt: expected an mqtt:// or mqtts:// URL, found \"http://broker.lan\""),
        (["fleet", "--mqtt", "mqtt://broker.lan:70000"], "--mqtt: the port 70000 is not from 1 to 65535"),
        (["flet", "--mqtt", "mqtt://broker.lan"], "unknown subcommand \"flet\"; did you mean fleet?"),
    ])
    func aUsageErrorExits64WithItsMessageAndAHint(arguments: [String], message: String) {
        let run = Self.run(["--socket", Self.nowhere] + arguments)
        #expect(run.status == 64)
        // The hint names the subcommand's own help once the subcommand is known.
        let subcommand = arguments.prefix { $0 != "--" }.first {
            ["status", "where", "search", "lookup", "select", "location", "saved", "fleet", "watch", "air", "weather"].contains($0)
        }
        let hint = subcommand.map { "Run 'breezectl help \($0)' for its usage.\n" } ?? "Run 'breezectl --help' for usage.\n"
        #expect(run.errors == "breezectl: \(message)\n" + hint)
        #expect(run.output == "")
    }

    @Test func theVersionIsPrinted() {
        let run = Self.run(["--version"])
        #expect(run.status == 0)
        #expect(run.output == "breezectl \(Release.version)\n")
        #expect(run.errors == "")
    }

    @Test func helpListsEverySubcommandWithItsAbstract() {
        let run = Self.run(["--help"])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("OVERVIEW: Query and control breezed, the Breeze location daemon.\n\nUSAGE: breezectl "))
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("  status                  Show everything: place, permission, air quality, pollen, climate, weather."))
        #expect(lines.contains("  refresh                 Fetch the data for the current place now and wait for every answer."))
        #expect(lines.contains("  75  no data now, try again later: a fetch failed (refresh: names the datasets) or is under way"))
        #expect(lines.contains("  77  not permitted"))
        #expect(lines.filter { $0.hasPrefix("  ") && $0.count > 26 && $0.dropFirst(26).first != " " }.count >= 14)
    }

    @Test(arguments: [["help", "lookup"], ["lookup", "--help"], ["-h", "lookup"]])
    func helpForOneSubcommandGivesItsUsage(arguments: [String]) {
        let run = Self.run(arguments)
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("OVERVIEW: Name the place at a latitude and longitude.\n\nUSAGE: breezectl lookup <latitude> <longitude>\n"))
        #expect(!run.output.contains("--waybar"))
    }

    @Test(arguments: ["status", "where", "air", "pollen", "climate", "weather", "watch", "search", "lookup", "select",
                      "here", "saved", "popular", "location", "refresh", "fleet"])
    func everySubcommandHasHelpWithExamples(name: String) {
        for arguments in [["help", name], [name, "--help"]] {
            let run = Self.run(arguments)
            #expect(run.status == 0)
            #expect(run.output.contains("\nUSAGE: breezectl \(name)"), "\(run.output)")
            #expect(run.output.contains("\nEXAMPLES:\n  breezectl "), "\(run.output)")
            #expect(run.errors == "")
        }
    }

    @Test(arguments: [("select", "  <id-or-query>           A GeoNames id"), ("saved", "  remove <id-or-name>     Remove a saved city")])
    func helpDescribesTheArguments(name: String, line: String) {
        let help = Self.run(["help", name]).output
        #expect(help.contains("\nARGUMENTS:\n"), "\(help)")
        #expect(help.contains(line), "\(help)")
    }

    @Test(arguments: [["fly"], ["xyzzy"], ["completely-else"]])
    func aNameFarFromEverySubcommandGetsNoSuggestion(arguments: [String]) {
        let run = Self.run(arguments)
        #expect(run.status == 64)
        #expect(!run.errors.contains("did you mean"), "\(run.errors)")
    }

    /// `completion` has help of its own, however it is asked for.
    @Test(arguments: [["help", "completion"], ["completion", "--help"], ["completion", "bash", "-h"]])
    func completionHasHelp(arguments: [String]) {
        let run = Self.run(arguments)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.hasPrefix("OVERVIEW: Print a completion script for bash, zsh or fish.\n\nUSAGE: breezectl completion bash|zsh|fish\n"), "\(run.output)")
        #expect(run.output.contains("source <(breezectl completion bash)"), "\(run.output)")
    }

    @Test func helpForWatchListsItsOwnOptions() {
        let run = Self.run(["help", "watch"])
        #expect(run.output.contains("  --waybar                Print Waybar custom-module JSON"))
        #expect(run.output.contains("USAGE: breezectl watch [--json | --format <text> | --waybar | --i3bar] [--once | --count <n>]\n"))
    }

    @Test func helpForFleetListsItsOwnOptionsThenTheGlobalOnes() throws {
        let help = Self.run(["fleet", "--help"]).output
        #expect(help.contains("USAGE: breezectl fleet [--mqtt <url> | --config <path>] [--ca-file <path>] [--json] [--watch]\n"))
        let mqtt = try #require(help.range(of: "\n  --mqtt <url>            The broker: mqtt[s]://"), "\(help)")
        let caFile = try #require(help.range(of: "\n  --ca-file <path>        The authority an mqtts://"), "\(help)")
        let watch = try #require(help.range(of: "\n  --watch                 After the list"), "\(help)")
        let socket = try #require(help.range(of: "\n  --socket <path>"), "\(help)")
        #expect(mqtt.lowerBound < caFile.lowerBound && caFile.lowerBound < watch.lowerBound)
        #expect(watch.lowerBound < socket.lowerBound)
        #expect(help.contains("\n  breezectl fleet --mqtt mqtt://broker.lan\n"), "\(help)")
    }

    @Test func aDaemonThatIsNotThereExits69() {
        let run = Self.run(["--socket", Self.nowhere, "status"])
        #expect(run.status == 69)
        #expect(run.errors.hasPrefix("breezectl: "))
        #expect(run.errors.contains(Self.nowhere))
    }

    @Test func theSocketComesFromTheEnvironmentWhenNotGiven() {
        let run = Self.run(["where"], environment: ["BREEZE_SOCKET": Self.nowhere])
        #expect(run.status == 69)
        #expect(run.errors.contains(Self.nowhere))
    }

    @Test(arguments: ["86400", "0.001", "1e-3"])
    func aTimeoutWithinItsRangeIsTaken(seconds: String) {
        // Taken: the run gets as far as connecting, which fails for want of a daemon.
        let run = Self.run(["--socket", Self.nowhere, "--timeout", seconds, "status"])
        #expect(run.status == 69)
    }

    @Test(arguments: [["lookup", "-33.8688", "151.2093"], ["lookup", "--", "-33.8688", "151.2093"],
                      ["lookup", "--", "47.4", "8.6"], ["--", "lookup", "-22.9", "-43.2"]])
    func aNegativeNumberIsAValueNotAnOption(arguments: [String]) {
        // Validated, not a usage error: with no daemon listening, answered from the places index.
        let run = Self.run(["--socket", Self.nowhere] + arguments)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("answered from the places index"), "\(run.errors)")
    }
}

/// The request line each subcommand sends, as a daemon receives it.
@Suite struct RequestLineTests {
    /// The first request breezectl sends for `arguments`, read by a daemon that then hangs up.
    static func firstRequest(_ arguments: [String]) async throws -> JSONValue {
        let received = Collected()
        let daemon = FakeDaemon { fd in
            FakeDaemon.write(fd, "{\"class\":\"VERSION\",\"release\":\"0.1.0\",\"proto_major\":1,\"proto_minor\":1}\n")
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
            received.append(String(decoding: line, as: UTF8.self))
        }
        defer { daemon.stop() }
        let run = try #require(
            await BreezectlConnectionTests.breezectl(["--socket", daemon.path, "--timeout", "5"] + arguments))
        // A daemon that hangs up without answering: a failure, but for what only reads the index (search,
        // lookup), which is answered from it.
        let readsTheIndex = arguments.first == "search" || arguments.first == "lookup"
        #expect(readsTheIndex ? run.errors.contains("answered from the places index") : run.status != 0, "\(run.errors)")
        return try JSONValue.parse(received.value)
    }

    @Test func selectByIdSendsTheCity() async throws {
        let request = try await Self.firstRequest(["select", "2661552"])
        #expect(request["command"] == .string("select"))
        #expect(request["city"] == .number(2_661_552))
        #expect(request["query"] == nil)
    }

    @Test func selectByNameSendsTheQuery() async throws {
        let request = try await Self.firstRequest(["select", "Bern"])
        #expect(request["query"] == .string("Bern"))
        #expect(request["city"] == nil)
    }

    @Test func lookupSendsBothNumbers() async throws {
        let request = try await Self.firstRequest(["lookup", "-33.8688", "151.2093"])
        #expect(request["command"] == .string("lookup"))
        #expect(request["latitude"] == .number(-33.8688))
        #expect(request["longitude"] == .number(151.2093))
    }

    @Test(arguments: [("on", true), ("off", false)])
    func locationSendsTheSwitch(word: String, enabled: Bool) async throws {
        let request = try await Self.firstRequest(["location", word])
        #expect(request["command"] == .string("location"))
        #expect(request["enabled"] == .bool(enabled))
    }

    @Test func savedWithoutAnActionLists() async throws {
        let request = try await Self.firstRequest(["saved"])
        #expect(request["command"] == .string("saved"))
        #expect(request["action"] == .string("list"))
    }

    @Test func savedRemoveSendsTheCityId() async throws {
        let request = try await Self.firstRequest(["saved", "remove", "42"])
        #expect(request["action"] == .string("remove"))
        #expect(request["city"] == .number(42))
    }

    @Test func lookupAfterDoubleDashSendsBothNumbers() async throws {
        let request = try await Self.firstRequest(["lookup", "--", "-22.9", "-43.2"])
        #expect(request["latitude"] == .number(-22.9))
        #expect(request["longitude"] == .number(-43.2))
    }

    @Test func searchSendsTheQueryAsTyped() async throws {
        let request = try await Self.firstRequest(["search", "San Fr"])
        #expect(request["command"] == .string("search"))
        #expect(request["query"] == .string("San Fr"))
    }

    @Test func statusAsksForTheStatus() async throws {
        #expect(try await Self.firstRequest(["status"])["command"] == .string("status"))
        #expect(try await Self.firstRequest(["refresh"])["command"] == .string("refresh"))
        #expect(try await Self.firstRequest(["refresh"])["wait"] == .bool(true))
        #expect(try await Self.firstRequest(["here"])["command"] == .string("here"))
        #expect(try await Self.firstRequest(["popular"])["command"] == .string("popular"))
    }
}

/// `saved remove` with a name: the saved list is read, and the one city called so removed by its id.
@Suite struct SavedRemoveTests {
    static let savedList = #"{"class":"SAVED","places":[{"class":"PLACE","name":"Zürich, Switzerland","city":"Zürich","#
        + #""country":"Switzerland","geoname_id":2657896},{"class":"PLACE","name":"Oslo, Norway","city":"Oslo","#
        + #""country":"Norway","geoname_id":3143244},{"class":"PLACE","name":"Portland, Oregon, United States","#
        + #""city":"Portland","geoname_id":5746545},{"class":"PLACE","name":"Portland, Maine, United States","#
        + #""city":"Portland","geoname_id":4975802}],"id":1}"#

    /// Runs `saved remove <name>` against a daemon that answers the list with `savedList`; returns the run and the
    /// requests it received.
    static func remove(_ name: String) async throws -> (BreezectlRun, [JSONValue]) {
        let received = Collected()
        let daemon = FakeDaemon { fd in
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(fd, &byte, 1) == 1 {
                guard byte == 0x0A else {
                    line.append(byte)
                    continue
                }
                let text = String(decoding: line, as: UTF8.self)
                line = []
                received.append(text + "\n")
                guard let request = try? JSONValue.parse(text) else { return }
                let id = request["id"]?.numberValue.map { Int($0) } ?? 0
                if request["action"] == .string("list") {
                    FakeDaemon.write(fd, savedList.replacingOccurrences(of: "\"id\":1}", with: "\"id\":\(id)}") + "\n")
                } else {
                    FakeDaemon.write(fd, #"{"class":"SAVED","places":[],"id":\#(id)}"# + "\n")
                }
            }
        }
        defer { daemon.stop() }
        let run = try #require(
            await BreezectlConnectionTests.breezectl(
                ["--socket", daemon.path, "--timeout", "5", "saved", "remove", name]))
        let requests = received.value.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
        return (run, requests)
    }

    @Test(arguments: [("zurich", 2657896), ("Zürich, Switzerland", 2657896), ("OSLO", 3143244), (" oslo ", 3143244)])
    func aNameRemovesTheSavedCityOfThatName(name: String, id: Int) async throws {
        let (run, requests) = try await Self.remove(name)
        #expect(run.status == 0, "\(run.errors)")
        #expect(requests.count == 2)
        #expect(requests.first?["action"] == .string("list"))
        #expect(requests.last?["action"] == .string("remove"))
        #expect(requests.last?["city"] == .number(Double(id)))
    }

    @Test func aNameNoSavedCityHasFailsWithoutRemoving() async throws {
        let (run, requests) = try await Self.remove("Bern")
        #expect(run.status == 1)
        #expect(run.errors.contains("no saved city is called \"Bern\""), "\(run.errors)")
        #expect(!requests.contains { $0["action"] == .string("remove") })
    }

    @Test func aNameSeveralSavedCitiesHaveAsksForTheId() async throws {
        let (run, requests) = try await Self.remove("portland")
        #expect(run.status == 64)
        #expect(run.errors.contains("(5746545)") && run.errors.contains("(4975802)"), "\(run.errors)")
        #expect(!requests.contains { $0["action"] == .string("remove") })
    }
}

