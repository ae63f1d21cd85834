import BreezeCore
import BreezeDaemon
import Foundation
import Testing

/// Each setting of `breezed.conf`: the value it takes, its bounds at both ends, and the file's syntax.
@Suite struct ConfigurationValueTests {
    static func apply(_ text: String) throws(ConfigurationError) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        try configuration.apply(try ConfigurationFile(text: text, name: "test.conf"))
        return configuration
    }

    static func message(_ text: String) -> String? {
        do {
            _ = try apply(text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func theDefaults() {
        let configuration = DaemonConfiguration()
        #expect(configuration.gpsd?.host == "127.0.0.1")
        #expect(configuration.gpsd?.port == 2947)
        #expect(configuration.geoclue && configuration.geoclueAgent)
        #expect(configuration.geoclueAccuracy == 8)
        #expect(configuration.movementThreshold == 250)
        #expect(configuration.fixTimeout == 30)
        #expect(configuration.refresh[.air] == 3_600)
        #expect(configuration.refresh[.pollen] == 86_400)
        #expect(configuration.requestsPerHour == 500)
        #expect(configuration.socketPath == "/run/breezed/breezed.sock")
        #expect(configuration.maximumClients == 1_024)
        #expect(configuration.roundCoordinatesForOthers)
        #expect(configuration.offline == false)
        #expect(configuration.logLevel == .info)
    }

    @Test(arguments: [
        ("30", 30.0), ("60", 60), ("90s", 90), ("30m", 1_800), ("1m", 60), ("2h", 7_200), ("1H", 3_600),
        ("1d", 86_400), ("7d", 604_800), ("1.5h", 5_400), ("604800", 604_800),
    ])
    func durationsTakeAUnit(text: String, seconds: Double) throws {
        if seconds < 60 {
            #expect(Self.message("[data]\nair_refresh=\(text)") == "[data] air_refresh: expected a duration from 1m to 7d (seconds, or with s, m, h or d: 90, 30m, 1h), found \"\(text)\"")
        } else {
            #expect(try Self.apply("[data]\nair_refresh=\(text)").refresh[.air] == seconds)
            #expect(try Self.apply("[data]\npollen_refresh=\(text)").refresh[.pollen] == seconds)
            #expect(try Self.apply("[data]\nclimate_refresh=\(text)").refresh[.climate] == seconds)
        }
    }

    @Test(arguments: ["59", "59s", "604801", "8d", "169h", "1w", "m", "", "inf", "-1h"])
    func durationsOutsideAMinuteToAWeekAreRefused(text: String) {
        #expect(Self.message("[data]\nair_refresh=\(text)")?.hasPrefix("[data] air_refresh: expected a duration") == true)
    }

    @Test(arguments: [
        ("true", true), ("yes", true), ("on", true), ("1", true), ("TRUE", true),
        ("false", false), ("no", false), ("off", false), ("0", false), ("Off", false),
    ])
    func booleansInTheirSpellings(text: String, value: Bool) throws {
        #expect(try Self.apply("[data]\noffline=\(text)").offline == value)
        #expect(try Self.apply("[socket]\nround_coordinates=\(text)").roundCoordinatesForOthers == value)
        #expect(try Self.apply("[geoclue]\nagent=\(text)").geoclueAgent == value)
    }

    @Test(arguments: ["2", "y", "", "tru"])
    func otherBooleansAreRefused(text: String) {
        #expect(Self.message("[geoclue]\nenabled=\(text)") == "[geoclue] enabled: expected true or false, found \"\(text)\"")
    }

    @Test func wholeNumbersAtTheEndsOfTheirRanges() throws {
        #expect(try Self.apply("[geoclue]\naccuracy=0").geoclueAccuracy == 0)
        #expect(try Self.apply("[geoclue]\naccuracy=8").geoclueAccuracy == 8)
        #expect(try Self.apply("[data]\nrequests_per_hour=1").requestsPerHour == 1)
        #expect(try Self.apply("[data]\nrequests_per_hour=4000").requestsPerHour == 4_000)
        #expect(try Self.apply("[socket]\nmax_clients=1").maximumClients == 1)
        #expect(try Self.apply("[socket]\nmax_clients=65536").maximumClients == 65_536)
        #expect(Self.message("[data]\nrequests_per_hour=4001") == "[data] requests_per_hour: expected a whole number from 1 to 4000, found \"4001\"")
        #expect(Self.message("[socket]\nmax_clients=0") == "[socket] max_clients: expected a whole number from 1 to 65536, found \"0\"")
    }

    @Test func decimalsAtTheEndsOfTheirRanges() throws {
        #expect(try Self.apply("[location]\nmovement_threshold=0").movementThreshold == 0)
        #expect(try Self.apply("[location]\nmovement_threshold=100000").movementThreshold == 100_000)
        #expect(try Self.apply("[location]\nmovement_threshold=12.5").movementThreshold == 12.5)
        #expect(try Self.apply("[location]\nfix_timeout=1").fixTimeout == 1)
        #expect(try Self.apply("[location]\nfix_timeout=3600").fixTimeout == 3_600)
        #expect(Self.message("[location]\nfix_timeout=3600.5") == "[location] fix_timeout: expected a duration from 1s to 1h (seconds, or with s, m, h or d: 90, 30m, 1h), found \"3600.5\"")
        #expect(Self.message("[location]\nmovement_threshold=-0.1")?.hasPrefix("[location] movement_threshold: expected a number") == true)
    }

    @Test func everyDurationTakesTheSameUnits() throws {
        #expect(try Self.apply("[location]\nfix_timeout=30s").fixTimeout == 30)
        #expect(try Self.apply("[location]\nfix_timeout=2m").fixTimeout == 120)
        #expect(try Self.apply("[location]\nfix_timeout=1h").fixTimeout == 3_600)
        #expect(try Self.apply("[mqtt]\nkeepalive=2m").mqtt.keepalive == 120)
        #expect(try Self.apply("[mqtt]\nkeepalive=45s").mqtt.keepalive == 45)
        #expect(try Self.apply("[data]\nair_refresh=3600s").refresh[.air] == 3_600)
        #expect(Self.message("[location]\nfix_timeout=2h")?.hasPrefix("[location] fix_timeout: expected a duration from 1s to 1h") == true)
    }

    @Test(arguments: [
        ("movement_threshold = 100    # metres", "100"), ("movement_threshold=100\t; metres", "100"),
        ("fallback_city = Bern # the capital", "Bern"), ("fallback_city = Bern#2", "Bern#2"),
        ("fallback_city = # none", ""), ("fallback_city =#x", "#x"),
    ])
    func aCommentAfterASpaceEndsTheValue(line: String, value: String) throws {
        let file = try ConfigurationFile(text: "[location]\n" + line + "\n", name: "test.conf")
        #expect(file.sections["location"]?.values.first?.value == value)
    }

    @Test func gpsdCanBeSwitchedOffAndOnAgain() throws {
        #expect(try Self.apply("[gpsd]\nenabled=false").gpsd == nil)
        let again = try Self.apply("[gpsd]\nenabled=true")
        #expect(again.gpsd?.host == "127.0.0.1")
        #expect(again.gpsd?.port == 2947)
        let moved = try Self.apply("[gpsd]\naddress=gps.local:3000\nenabled=true")
        #expect(moved.gpsd?.host == "gps.local")
        #expect(moved.gpsd?.port == 3000)
    }

    @Test func enablingGPSDOverAConfigurationWithoutItGivesTheDefaultAddress() throws {
        var configuration = DaemonConfiguration()
        configuration.gpsd = nil
        try configuration.apply(try ConfigurationFile(text: "[gpsd]\nenabled=yes\n", name: "on.conf"))
        #expect(configuration.gpsd?.host == "127.0.0.1")
        #expect(configuration.gpsd?.port == 2947)
        configuration.gpsd = nil
        try configuration.apply(try ConfigurationFile(text: "[gpsd]\nenabled=no\n", name: "off.conf"))
        #expect(configuration.gpsd == nil)
    }

    @Test func emptyValuesClearOptionalSettings() throws {
        let configuration = try Self.apply(
            "[location]\nfallback_city=\nplaces_index=\n[data]\ngoogle_pollen_key=\ngoogle_pollen_key_file=\nca_file=\n")
        #expect(configuration.fallbackCity == nil)
        #expect(configuration.caFile == nil)
        #expect(configuration.placesIndex == nil)
        #expect(configuration.googlePollenKey == nil)
        #expect(configuration.googlePollenKeyFile == nil)
        let set = try Self.apply("[location]\nfallback_city=Bern\nplaces_index=/srv/p.bin\n[data]\ngoogle_pollen_key=k1\n")
        #expect(set.fallbackCity == "Bern")
        #expect(set.placesIndex == "/srv/p.bin")
        #expect(set.googlePollenKey == "k1")
    }

    @Test func oneURLSetsOneEndpointAndTheBaseSetsAll() throws {
        let one = try Self.apply("[data]\nforecast_url=https://forecast.example/v1\n")
        #expect(one.endpoints.forecast.absoluteString == "https://forecast.example/v1")
        #expect(one.endpoints.archive.absoluteString == "https://archive-api.open-meteo.com")
        let all = try Self.apply("[data]\napi_base=http://127.0.0.1:9\n")
        for url in [all.endpoints.airQuality, all.endpoints.archive, all.endpoints.forecast, all.endpoints.geocoding,
                    all.endpoints.googlePollen, all.endpoints.nominatim] {
            #expect(url.absoluteString == "http://127.0.0.1:9")
        }
        #expect(Self.message("[data]\nnominatim_url=ftp://x.example") == "[data] nominatim_url: expected an http:// or https:// URL, found \"ftp://x.example\"")
        #expect(Self.message("[data]\ngeocoding_url=http://") != nil)
    }

    @Test func pathsMustBeAbsolute() throws {
        #expect(try Self.apply("[daemon]\nstate_dir=/srv/state\ncache_dir=/srv/cache\n").stateDirectory == "/srv/state")
        #expect(Self.message("[daemon]\ncache_dir=cache") == "[daemon] cache_dir: expected an absolute path, found \"cache\"")
        #expect(Self.message("[socket]\npath=b.sock") == "[socket] path: expected an absolute path, found \"b.sock\"")
        #expect(try Self.apply("[data]\nca_file=/etc/breezed/ca.pem\n").caFile == "/etc/breezed/ca.pem")
        #expect(Self.message("[data]\nca_file=ca.pem") == "[data] ca_file: expected an absolute path, found \"ca.pem\"")
    }

    @Test func aNumericGroupIsTakenAsItsID() throws {
        let configuration = try Self.apply("[socket]\ngroup=4294967294\n")
        #expect(configuration.socketGroupID == 4_294_967_294)
        #expect(configuration.socketGroup == "4294967294")
    }

    @Test func unknownSettingsNameWhatIsKnown() {
        #expect(Self.message("[socket]\nmode=0600") == "[socket] mode: unknown setting: known keys are path, group, round_coordinates, max_clients")
        #expect(Self.message("[web]\nbase=x") == "[web] base: unknown setting: known sections are gpsd, geoclue, location, data, socket, daemon, mqtt")
        #expect(Self.message("offline=true") == "offline: unknown setting: known sections are gpsd, geoclue, location, data, socket, daemon, mqtt")
    }

    @Test func theMQTTSection() throws {
        #expect(DaemonConfiguration().mqtt.broker == nil)
        let configuration = try Self.apply("""
            [mqtt]
            url = mqtts://pi@broker.lan
            node = boat
            topic_prefix = fleet
            discovery_prefix = ha
            discovery = false
            password_file = /etc/breezed/mqtt-password
            ca_file = /etc/ssl/broker.pem
            keepalive = 30
            precise = true
            """)
        let mqtt = configuration.mqtt
        #expect(mqtt.broker?.host == "broker.lan" && mqtt.broker?.port == 8883 && mqtt.broker?.tls == true)
        #expect(mqtt.broker?.username == "pi")
        #expect(mqtt.nodeName == "boat" && mqtt.topicPrefix == "fleet" && mqtt.discoveryPrefix == "ha")
        #expect(!mqtt.discovery && mqtt.precise && mqtt.keepalive == 30)
        #expect(mqtt.passwordFile == "/etc/breezed/mqtt-password" && mqtt.caFile == "/etc/ssl/broker.pem")
        #expect(!DaemonConfiguration().mqtt.precise)
    }

    @Test(arguments: [
        ("[mqtt]\nurl=http://broker", "[mqtt] url: expected an mqtt:// or mqtts:// URL, found \"http://broker\""),
        ("[mqtt]\nnode=a/b", "[mqtt] node: expected a node name of 1 to 64 letters, digits, '-', '_' or '.', found \"a/b\""),
        ("[mqtt]\ntopic_prefix=#", "[mqtt] topic_prefix: expected a topic prefix of 1 to 64 letters, digits, '-', '_' or '.', found \"#\""),
        ("[mqtt]\nkeepalive=4", "[mqtt] keepalive: expected a duration from 5s to 1h (seconds, or with s, m, h or d: 90, 30m, 1h), found \"4\""),
        ("[mqtt]\npassword_file=relative", "[mqtt] password_file: expected an absolute path, found \"relative\""),
    ])
    func badMQTTValuesAreNamed(text: String, message: String) {
        #expect(Self.message(text) == message)
    }

    @Test func theFirstBadLineIsTheOneReported() {
        #expect {
            _ = try Self.apply("[data]\noffline=x\nrequests_per_hour=0\n")
        } throws: { error in
            (error as? ConfigurationError)?.line == 2
        }
    }
}

/// The INI syntax: sections, keys, comments, case and white space.
@Suite struct ConfigurationSyntaxTests {
    @Test func sectionsAndKeysAreLowercasedAndTrimmed() throws {
        let file = try ConfigurationFile(text: "[ GPSD ]\n  Address =  10.0.0.1:2947  \n", name: "a.conf")
        #expect(file.sections["gpsd"]?["address"]?.value == "10.0.0.1:2947")
        #expect(file.sections["gpsd"]?["address"]?.line == 2)
        #expect(file.name == "a.conf")
    }

    @Test func commentsAndBlankLinesAreSkippedButCounted() throws {
        let file = try ConfigurationFile(text: "# one\n; two\n\n\t\n[data]\noffline=yes\n", name: "b.conf")
        #expect(file.sections.count == 1)
        #expect(file.sections["data"]?["offline"]?.line == 6)
    }

    @Test func aValueMayHoldAnEqualsSignAndATab() throws {
        let file = try ConfigurationFile(text: "[data]\ngoogle_pollen_key=a=b\tc\n", name: "c.conf")
        #expect(file.sections["data"]?["google_pollen_key"]?.value == "a=b\tc")
    }

    @Test func keysBeforeAnySectionFallInTheEmptySection() throws {
        let file = try ConfigurationFile(text: "x=1\n[a]\ny=2\n", name: "d.conf")
        #expect(file.sections[""]?["x"]?.value == "1")
        #expect(file.sections["a"]?["y"]?.value == "2")
    }

    @Test(arguments: [
        ("[gpsd\n", 1, "a section header is [name]: [gpsd"),
        ("\n[]\n", 2, "a section header is [name]: []"),
        ("[a]\n=1\n", 2, "a key is missing before '='"),
        ("[a]\nb=1\n\nB=2\n", 4, "b is already set on line 2"),
        ("[a]\nnoequals\n", 2, "expected key=value, found \"noequals\""),
        ("[a]\nb=\u{1B}[0m\n", 2, "a control character (U+001B) in the line"),
    ])
    func aBadLineIsNamed(text: String, line: Int, message: String) {
        #expect {
            _ = try ConfigurationFile(text: text, name: "e.conf")
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.line == line && error?.message == message && error?.file == "e.conf"
        }
    }

    @Test func theSameKeyInTwoSectionsIsNoConflict() throws {
        let file = try ConfigurationFile(text: "[gpsd]\nenabled=1\n[geoclue]\nenabled=0\n", name: "f.conf")
        #expect(file.sections["gpsd"]?["enabled"]?.value == "1")
        #expect(file.sections["geoclue"]?["enabled"]?.value == "0")
    }

    @Test func anErrorDescribesItselfWithFileAndLine() {
        #expect(ConfigurationError(file: "/etc/b.conf", line: 4, "bad").description == "/etc/b.conf:4: bad")
        #expect(ConfigurationError(file: "/etc/b.conf", line: nil, "bad").description == "/etc/b.conf: bad")
    }
}
