import BreezeCLI
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
            arguments, environment: environment, isTerminal: false,
            output: TextOutput(standard: { output.append($0) }, error: { errors.append($0) }))
        return BreezectlRun(status: status, output: output.value, errors: errors.value)
    }

    static let nowhere = "/nonexistent/breezectl-test.sock"

    @Test(arguments: [
        ([], "a subcommand is needed"),
        (["fly"], "unknown subcommand \"fly\""),
        (["--bogus", "status"], "unknown option \"--bogus\""),
        (["status", "extra"], "usage: breezectl status"),
        (["search"], "usage: breezectl search <query>"),
        (["search", "a", "b"], "usage: breezectl search <query>"),
        (["search", " x "], "a search needs at least 2 characters"),
        (["lookup", "46.9"], "usage: breezectl lookup <latitude> <longitude>"),
        (["lookup", "north", "7.4"], "lookup takes two numbers: breezectl lookup <latitude> <longitude>"),
        (["location", "maybe"], "location takes on or off, not \"maybe\""),
        (["saved", "clear"], "saved takes list, add or remove, not \"clear\""),
        (["saved", "add"], "usage: breezectl saved [list | add <id-or-query> | remove <id>]"),
        (["saved", "remove", "Bern"], "saved remove takes a city id"),
        (["saved", "list", "x", "y"], "usage: breezectl saved [list | add <id-or-query> | remove <id>]"),
        (["--units", "k", "air"], "--units is c or f, not \"k\""),
        (["--timeout", "0", "air"], "--timeout is a number of seconds above 0 and up to 86400, not \"0\""),
        (["--timeout", "86401", "air"], "--timeout is a number of seconds above 0 and up to 86400, not \"86401\""),
        (["--timeout", "nan", "air"], "--timeout is a number of seconds above 0 and up to 86400, not \"nan\""),
        (["--timeout"], "--timeout needs a value"),
        (["--format", "{aqi}", "air"], "--format, --waybar, --i3bar and --once go with watch"),
        (["--waybar", "status"], "--format, --waybar, --i3bar and --once go with watch"),
        (["--once", "status"], "--format, --waybar, --i3bar and --once go with watch"),
        (["watch", "--waybar", "--i3bar"], "--waybar and --i3bar: one or the other"),
        (["watch", "--once"], "--once prints one line: it goes with --format, --waybar or --i3bar"),
        (["watch", "--once", "--json", "--waybar"], "--once prints one line: it goes with --format, --waybar or --i3bar"),
    ])
    func aUsageErrorExits64WithItsMessageAndAHint(arguments: [String], message: String) {
        let run = Self.run(["--socket", Self.nowhere] + arguments)
        #expect(run.status == 64)
        #expect(run.errors == "breezectl: \(message)\nRun 'breezectl --help' for usage.\n")
        #expect(run.output == "")
    }

    @Test func theVersionIsPrinted() {
        let run = Self.run(["--version"])
        #expect(run.status == 0)
        #expect(run.output == "breezectl 0.1.0\n")
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

    @Test func helpForWatchListsItsOwnOptions() {
        let run = Self.run(["help", "watch"])
        #expect(run.output.contains("  --waybar                Print Waybar custom-module JSON"))
        #expect(run.output.contains("USAGE: breezectl watch [--json | --format <text> | --waybar | --i3bar] [--once]\n"))
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

    @Test func aNegativeNumberIsAValueNotAnOption() {
        // Validated and sent: the run fails only because no daemon listens.
        let run = Self.run(["--socket", Self.nowhere, "lookup", "-33.8688", "151.2093"])
        #expect(run.status == 69)
    }
}

/// The request line each subcommand sends, as a daemon receives it.
@Suite struct RequestLineTests {
    /// The first request breezectl sends for `arguments`, read by a daemon that then hangs up.
    static func firstRequest(_ arguments: [String]) throws -> JSONValue {
        let received = Collected()
        let daemon = FakeDaemon { fd in
            FakeDaemon.write(fd, "{\"class\":\"VERSION\",\"release\":\"0.1.0\",\"proto_major\":1,\"proto_minor\":1}\n")
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
            received.append(String(decoding: line, as: UTF8.self))
        }
        defer { daemon.stop() }
        let run = try #require(BreezectlConnectionTests.breezectl(["--socket", daemon.path, "--timeout", "5"] + arguments))
        #expect(run.status != 0)
        return try JSONValue.parse(received.value)
    }

    @Test func selectByIdSendsTheCity() throws {
        let request = try Self.firstRequest(["select", "2661552"])
        #expect(request["command"] == .string("select"))
        #expect(request["city"] == .number(2_661_552))
        #expect(request["query"] == nil)
    }

    @Test func selectByNameSendsTheQuery() throws {
        let request = try Self.firstRequest(["select", "Bern"])
        #expect(request["query"] == .string("Bern"))
        #expect(request["city"] == nil)
    }

    @Test func lookupSendsBothNumbers() throws {
        let request = try Self.firstRequest(["lookup", "-33.8688", "151.2093"])
        #expect(request["command"] == .string("lookup"))
        #expect(request["latitude"] == .number(-33.8688))
        #expect(request["longitude"] == .number(151.2093))
    }

    @Test(arguments: [("on", true), ("off", false)])
    func locationSendsTheSwitch(word: String, enabled: Bool) throws {
        let request = try Self.firstRequest(["location", word])
        #expect(request["command"] == .string("location"))
        #expect(request["enabled"] == .bool(enabled))
    }

    @Test func savedWithoutAnActionLists() throws {
        let request = try Self.firstRequest(["saved"])
        #expect(request["command"] == .string("saved"))
        #expect(request["action"] == .string("list"))
    }

    @Test func savedRemoveSendsTheCityId() throws {
        let request = try Self.firstRequest(["saved", "remove", "42"])
        #expect(request["action"] == .string("remove"))
        #expect(request["city"] == .number(42))
    }

    @Test func searchSendsTheQueryAsTyped() throws {
        let request = try Self.firstRequest(["search", "San Fr"])
        #expect(request["command"] == .string("search"))
        #expect(request["query"] == .string("San Fr"))
    }

    @Test func statusAsksForTheStatus() throws {
        #expect(try Self.firstRequest(["status"])["command"] == .string("status"))
        #expect(try Self.firstRequest(["refresh"])["command"] == .string("refresh"))
        #expect(try Self.firstRequest(["refresh"])["wait"] == .bool(true))
        #expect(try Self.firstRequest(["here"])["command"] == .string("here"))
        #expect(try Self.firstRequest(["popular"])["command"] == .string("popular"))
    }
}
