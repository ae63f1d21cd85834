import BreezeCore
import BreezeDaemon
import Foundation
import Testing

/// Values from the file and the command line: checked, in range, and the group resolved at start.
@Suite struct DaemonConfigurationTests {
    static func apply(_ text: String) throws(ConfigurationError) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        try configuration.apply(try ConfigurationFile(text: text, name: "test.conf"))
        return configuration
    }

    @Test func aGroupThatDoesNotExistIsAnErrorNamingTheLine() {
        #expect {
            _ = try Self.apply("[socket]\n\ngroup=no-such-group-breeze\n")
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.line == 3 && error?.message.contains("no group named no-such-group-breeze") == true
        }
    }

    @Test func anExistingGroupIsResolvedToItsID() throws {
        let configuration = try Self.apply("[socket]\ngroup=root\n")
        #expect(configuration.socketGroupID == 0)
        #expect(try Self.apply("[socket]\ngroup=\n").socketGroupID == nil)
    }

    @Test func breezedRefusesToStartWithAGroupThatDoesNotExist() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        try folder.write(Array("[socket]\ngroup=no-such-group-breeze\n[location]\nplaces_index=/nonexistent\n".utf8), to: "b.conf")
        let status = await DaemonMain.run(["breezed", "--config", folder.path + "/b.conf", "--state-dir", folder.path])
        #expect(status == 78)
    }

    @Test(arguments: [
        ("[geoclue]\naccuracy=9", "accuracy"), ("[geoclue]\naccuracy=-1", "accuracy"),
        ("[geoclue]\naccuracy=99999999999999999999999", "accuracy"),
        ("[location]\nmovement_threshold=1e400", "movement_threshold"),
        ("[location]\nmovement_threshold=nan", "movement_threshold"),
        ("[location]\nfix_timeout=0", "fix_timeout"),
        ("[data]\nair_refresh=1e308d", "air_refresh"), ("[data]\nair_refresh=-5m", "air_refresh"),
        ("[data]\nrequests_per_hour=0", "requests_per_hour"),
        ("[data]\nrequests_per_hour=9223372036854775808", "requests_per_hour"),
        ("[socket]\nmax_clients=65537", "max_clients"), ("[socket]\nmax_clients=1.5", "max_clients"),
        ("[gpsd]\naddress=localhost:70000", "address"), ("[gpsd]\naddress=localhost:-1", "address"),
        ("[socket]\ngroup=4294967295", "group"),
    ])
    func anOutOfRangeNumberIsAnErrorNamingTheKey(text: String, key: String) {
        #expect {
            _ = try Self.apply(text)
        } throws: { error in
            (error as? ConfigurationError)?.message.contains(key) == true
        }
    }

    @Test(arguments: [
        ["--gpsd", "host:99999"], ["--gpsd", "host:0"], ["--log-level", "loud"], ["--api-base", "ftp://x"],
        ["--socket"], ["--fallback-city", ""], ["--socket", "/run/a\u{0}b"], ["--bogus"],
    ])
    func aBadFlagIsAUsageError(arguments: [String]) {
        #expect(throws: UsageError.self) { _ = try DaemonOptions.parse(arguments) }
    }

    @Test func aConfigurationFileOverTheLimitIsRefused() throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let big = Array(String(repeating: "# padding\n", count: ConfigurationFile.maximumSize / 10 + 1).utf8)
        try folder.write(big, to: "big.conf")
        let options = try DaemonOptions.parse(["--config", folder.path + "/big.conf"])
        #expect(throws: ConfigurationError.self) { _ = try options.configuration() }
    }

    @Test func eachDatasetsRefreshIsSetByItsOwnKey() throws {
        #expect(DaemonConfiguration().refresh == [.air: 3_600, .pollen: 86_400, .climate: 86_400, .weather: 3_600])
        let configuration = try Self.apply("[data]\npollen_refresh=2h\nclimate_refresh=30m\nweather_refresh=15m\n")
        #expect(configuration.refresh == [.air: 3_600, .pollen: 7_200, .climate: 1_800, .weather: 900])
        #expect(try Self.apply("[data]\nair_refresh=1d\n").refresh[.air] == 86_400)
    }

    @Test func aRefreshOutOfRangeOrForNoDatasetIsRefused() {
        #expect(throws: ConfigurationError.self) { _ = try Self.apply("[data]\nair_refresh=10s\n") }
        #expect {
            _ = try Self.apply("[data]\nwind_refresh=1h\n")
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("known keys are") == true
        }
    }
}
