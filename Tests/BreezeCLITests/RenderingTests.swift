import BreezeCLI
import Foundation
import Testing

/// The text breezectl prints for each kind of reply, exactly, without colour.
@Suite struct RenderingTests {
    static func render(_ line: String, _ command: String, json: Bool = false, format: String? = nil, waybar: Bool = false) -> String {
        ReplyText.render(Array(line.utf8), command: command, json: json, format: format, waybar: waybar)
    }

    static let places = #"{"class":"PLACES","id":4,"places":[{"class":"PLACE","geoname_id":2661552,"city":"Bern","admin1":"Bern","country":"Switzerland"},{"class":"PLACE","geoname_id":4250542,"city":"Springfield","admin1":"Illinois","country":"United States"}]}"#

    @Test func placesAreListedWithTheirIdsInAColumn() {
        #expect(Self.render(Self.places, "search") == "2661552   Bern, Switzerland\n4250542   Springfield, Illinois, United States\n")
        #expect(Self.render(Self.places, "popular") == Self.render(Self.places, "search"))
        #expect(Self.render(Self.places, "saved") == Self.render(Self.places, "search"))
    }

    @Test func noPlacesSaySo() {
        #expect(Self.render(#"{"class":"PLACES","places":[]}"#, "search") == "No cities.\n")
        #expect(Self.render(#"{"class":"SAVED"}"#, "saved") == "No cities.\n")
    }

    @Test func placesAsJSONAreOneLinePerPlace() {
        #expect(Self.render(Self.places, "search", json: true) == """
            {"class":"PLACE","geoname_id":2661552,"city":"Bern","admin1":"Bern","country":"Switzerland"}
            {"class":"PLACE","geoname_id":4250542,"city":"Springfield","admin1":"Illinois","country":"United States"}

            """)
    }

    @Test func lookupShowsTheDistanceInKilometres() {
        #expect(Self.render(#"{"class":"PLACE","name":"Bern, Switzerland","distance_m":1549}"#, "lookup") == "Bern, Switzerland (1.5 km away)\n")
        #expect(Self.render(#"{"class":"PLACE","name":"Bern, Switzerland"}"#, "lookup") == "Bern, Switzerland\n")
        #expect(Self.render(#"{"class":"PLACE","name":"Bern, Switzerland","id":9}"#, "lookup", json: true) == "{\"class\":\"PLACE\",\"name\":\"Bern, Switzerland\"}\n")
    }

    @Test func aSelectedCityShowsItsNameSourceAndPosition() {
        let line = #"{"class":"LOCATION","name":"Bern, Switzerland","source":"manual","latitude":46.94809,"longitude":7.44744,"accuracy":12,"distance_m":260}"#
        #expect(Self.render(line, "select") == "Bern, Switzerland · manual\n  46.94809, 7.44744 ±12 m · 0.3 km from the centre\n")
        #expect(Self.render(#"{"class":"LOCATION","name":null,"state":"denied"}"#, "here") == "No place yet: select a city ('breezectl select CITY'), set [location] fallback_city=CITY in breezed.conf, or wait for a fix\n")
    }

    @Test func theLocationSwitchShowsThePermissionAndItsHint() {
        let line = #"{"class":"PERMISSION","state":"denied","reason":"switched-off","message":"Location is switched off","hint":"run 'breezectl location on'"}"#
        #expect(Self.render(line, "location") == "Location: denied — Location is switched off\nHint: run 'breezectl location on'\n")
        #expect(Self.render(#"{"class":"PERMISSION","state":"authorized","message":"Position from gpsd"}"#, "location") == "Location: authorized — Position from gpsd\n")
    }

    @Test func refreshListsEachDatasetsAnswer() {
        let reply = #"{"class":"OK","command":"refresh","datasets":[{"class":"AIR","state":"fresh","place":"Bern, Switzerland"},{"class":"POLLEN","state":"failed","reason":"server-error: HTTP 500","place":"Bern, Switzerland"}],"id":1}"#
        #expect(Self.render(reply, "refresh")
            == "AIR      fresh (Bern, Switzerland)\nPOLLEN   failed: server-error: HTTP 500 (Bern, Switzerland)\n")
        let json = Self.render(reply, "refresh", json: true)
        #expect(json.hasPrefix(#"{"class":"OK","command":"refresh","datasets":[{"class":"AIR""#) && !json.contains("\"id\""))
    }

    /// No network: four datasets failing alike are one line in `refresh` and one reason in `status`.
    @Test func oneFailureSharedByTheDatasetsIsSaidOnce() {
        let reason = "transport: Could not resolve host: api.open-meteo.com"
        let datasets = ["AIR", "POLLEN", "CLIMATE", "WEATHER"].map {
            #"{"class":"\#($0)","state":"failed","reason":"\#(reason)","place":"Bern, Switzerland"}"#
        }
        let reply = #"{"class":"OK","command":"refresh","datasets":[\#(datasets.joined(separator: ","))],"id":1}"#
        #expect(Self.render(reply, "refresh") == "AIR, POLLEN, CLIMATE, WEATHER failed: \(reason) (Bern, Switzerland)\n")
        let status = ReplyText.statusText(datasets, now: 0)
        #expect(status.components(separatedBy: reason).count == 2, "the reason once: \(status)")
        #expect(status.contains("AIR, POLLEN, CLIMATE, WEATHER: \(reason)"), "\(status)")
        #expect(status.contains("Air quality (failed)"), "\(status)")
    }

    /// A text watch prints a line when something shown changes: not for each retry failing alike (whose age
    /// grows), not for each fix of a parked receiver.
    @Test func textWatchPrintsALineWhenWhatItShowsChanges() {
        // Each retry fails alike, with its own age and its own next try: no news.
        let failed = (0..<12).map {
            #"{"class":"AIR","state":"failed","reason":"transport: no network","age_s":\#($0 * 60),"retry_at":"2026-12-07T10:\#(10 + $0):00.000Z"}"#
        }
        let other = #"{"class":"AIR","state":"failed","reason":"server-error: HTTP 503","age_s":800}"#
        let text = ReplyText.watchText(failed + [other])
        #expect(text.split(separator: "\n").count == 2, "\(text)")
        let fixes = (0..<5).map { #"{"class":"LOCATION","name":"Bern, Switzerland","source":"gpsd","mode":3,"stand_in":null,"time":"2026-11-30T10:02:1\#($0).000Z"}"# }
        #expect(ReplyText.watchText(fixes).split(separator: "\n").count == 1)
    }

    @Test func refreshIsAcknowledged() {
        #expect(Self.render(#"{"class":"OK","command":"refresh"}"#, "refresh") == "Fetching the data now.\n")
        #expect(Self.render(#"{"class":"OK","command":"refresh"}"#, "refresh", json: true) == "{\"class\":\"OK\"}\n")
    }

    static let air = #"{"class":"AIR","state":"fresh","us_aqi":42,"label":"Good","emoji":"🙂","summary":"Air is fine.","tips":["Open the windows."],"pollutants":[{"code":"pm2_5","symbol":"PM2.5","value":12.34,"status":"good"},{"code":"o3","symbol":"O₃","value":null,"status":null}]}"#

    @Test func airShowsTheIndexTheTipsAndEachPollutant() {
        #expect(Self.render(Self.air, "air") == """
            Air quality (fresh)
              AQI 42 🙂 Good — Air is fine.
              • Open the windows.
              PM2.5    12.3 µg/m³  good
              O₃          — µg/m³  no value

            """)
    }

    @Test func airWithoutAnIndexShowsOnlyItsState() {
        #expect(Self.render(#"{"class":"AIR","state":"failed","reason":"transport: refused","us_aqi":null}"#, "air") == "Air quality (failed: transport: refused)\n")
        // Fresh data whose refresh failed stays fresh, and says so.
        let kept = #"{"class":"AIR","state":"fresh","last_failure":"transport: no network","us_aqi":null}"#
        #expect(Self.render(kept, "air") == "Air quality (fresh; last refresh failed: transport: no network)\n")
        // After a failed attempt, when the next one is due; a time already past says nothing.
        let soon = Date(timeIntervalSinceNow: 125).ISO8601Format()
        let retrying = #"{"class":"AIR","state":"failed","reason":"transport: no network","retry_at":"\#(soon)"}"#
        #expect(Self.render(retrying, "air") == "Air quality (failed: transport: no network; next try in 2 min)\n")
        let past = Date(timeIntervalSinceNow: -5).ISO8601Format()
        let due = #"{"class":"AIR","state":"failed","reason":"transport: no network","retry_at":"\#(past)"}"#
        #expect(Self.render(due, "air") == "Air quality (failed: transport: no network)\n")
        #expect(Self.render(#"{"class":"AIR","state":"offline"}"#, "air", json: true) == "{\"class\":\"AIR\",\"state\":\"offline\"}\n")
    }

    @Test func pollenShowsEachEntryWithItsLevelAndGrains() {
        let line = #"{"class":"POLLEN","state":"stale","provider":"open-meteo","entries":[{"name":"Birch","level_name":"High","grains":80.25},{"name":"Grass","level_name":null}],"tips":["Keep windows shut."]}"#
        #expect(Self.render(line, "pollen") == """
            Pollen (stale) · open-meteo
              Birch     High (80.2 grains/m³)
              Grass     —
              • Keep windows shut.

            """)
    }

    @Test func climateDrawsABarPerYearAndTheChange() {
        let line = #"{"class":"CLIMATE","state":"fresh","month":6,"day":15,"points":[{"year":1980,"max_c":20},{"year":2000,"max_c":22},{"year":2020,"max_c":24}],"change_c":4}"#
        #expect(Self.render(line, "climate") == """
            Climate (fresh)
              Maximum temperature on June 15:
              1980  ▁  20.0°C
              2000  ▅▅▅▅▅  22.0°C
              2020  ████████  24.0°C
              Change since 1980: +4.0°C

            """)
    }

    @Test func climateWithEqualValuesDrawsMiddleBarsAndSkipsABadDate() {
        let line = #"{"class":"CLIMATE","state":"fresh","month":13,"day":1,"points":[{"year":1990,"max_c":-3.5},{"year":2010,"max_c":-3.5}]}"#
        #expect(Self.render(line, "climate") == """
            Climate (fresh)
              1990  ▄▄▄▄  -3.5°C
              2010  ▄▄▄▄  -3.5°C

            """)
    }

    @Test func theStatusOfOneObjectShowsEverySection() {
        #expect(Self.render(#"{"class":"LOCATION","name":"Bern, Switzerland","source":"gpsd"}"#, "status") == """
            Bern, Switzerland · gpsd

            Air quality: no data yet

            Pollen: no data yet

            Climate: no data yet

            Weather: no data yet

            """)
    }

    @Test func whereWithoutALocationShowsNoPlace() {
        #expect(Self.render(#"{"class":"PERMISSION","state":"requesting","message":"Asking gpsd for a position"}"#, "where") == "No place yet: select a city ('breezectl select CITY'), set [location] fallback_city=CITY in breezed.conf, or wait for a fix\n  Location: requesting — Asking gpsd for a position\n")
        #expect(Self.render(#"{"class":"AIR","state":"fresh"}"#, "where", json: true) == "{\"class\":\"LOCATION\",\"name\":null}\n")
    }

    /// A source that retries by itself says when; a time already past says nothing.
    @Test func anUnavailableSourceSaysWhenItIsTriedNext() {
        func permission(retryIn seconds: Double) -> String {
            let time = Date(timeIntervalSinceNow: seconds).ISO8601Format()
            return #"{"class":"PERMISSION","state":"unavailable","reason":"not-running","message":"gpsd is not running on 127.0.0.1:2947","retry_at":"\#(time)"}"#
        }
        #expect(Self.render(permission(retryIn: 125), "where").hasSuffix("\n  Location: unavailable (retrying in 2 min) — gpsd is not running on 127.0.0.1:2947\n"))
        #expect(Self.render(permission(retryIn: -5), "where").hasSuffix("\n  Location: unavailable — gpsd is not running on 127.0.0.1:2947\n"))
    }

    @Test func watchFillsAFormatFromTheUpdate() {
        #expect(Self.render(#"{"class":"LOCATION","name":"Bern, Switzerland","city":"Bern","country_code":"CH","latitude":46.5}"#, "watch", format: "{city}/{country_code}/{latitude}/{nothing}/{") == "Bern/CH/46.5//{\n")
        #expect(Self.render(Self.air, "watch", format: "AQI {aqi} {aqi_label} pm {pm2_5} o3 {o3}") == "AQI 42 Good pm 12.34 o3 \n")
        #expect(Self.render(#"{"class":"VERSION","release":"0.1.0"}"#, "watch", format: "{aqi}") == "")
    }

    /// One rule for a missing value: nothing, or the default the token names after a bar.
    @Test func aMissingValueIsEmptyOrTheDefaultItsTokenNames() {
        let loading = #"{"class":"AIR","state":"loading","us_aqi":null}"#
        #expect(Self.render(loading, "watch", format: "AQI {aqi}|{aqi|?}|{aqi|n/a}|{air_state|x}") == "AQI |?|n/a|loading\n")
        let weather = #"{"class":"WEATHER","state":"loading","temperature_c":null}"#
        #expect(Self.render(weather, "watch", format: "[{temp}] [{temp|--}] [{high|?}]") == "[] [--] [?]\n")
        #expect(Self.render(Self.air, "watch", format: "{aqi|?} {o3|none}") == "42 none\n")
        let pollen = #"{"class":"POLLEN","state":"fresh","highest":4}"#
        #expect(Self.render(pollen, "watch", format: "{pollen} {pollen_label}") == "4 High\n")
        let noPollen = #"{"class":"POLLEN","state":"loading","highest":null}"#
        #expect(Self.render(noPollen, "watch", format: "[{pollen_label}] [{pollen_label|unknown}]") == "[] [unknown]\n")
    }

    @Test func watchForWaybarIsOneJSONObject() {
        // An AIR with no place, and no LOCATION: nothing says where the index is for, so it is not shown.
        #expect(Self.render(Self.air, "watch", waybar: true) == #"{"text":"No place","tooltip":"No place yet: select a city ('breezectl select CITY') or set fallback_city in breezed.conf\nAir quality (fresh)","class":["no-place"],"alt":"no-place"}"# + "\n")
        let location = #"{"class":"LOCATION","name":"Bern, Switzerland","city":"Bern"}"#
        #expect(Self.render(location, "watch", waybar: true) == #"{"text":"Bern","tooltip":"Bern, Switzerland","class":["loading"],"alt":"loading"}"# + "\n")
    }

    @Test func watchAsJSONDropsTheRequestsId() {
        #expect(Self.render(#"{"class":"AIR","state":"loading","id":3}"#, "watch", json: true) == "{\"class\":\"AIR\",\"state\":\"loading\"}\n")
        #expect(Self.render(#"{"class":"WATCH","enabled":true}"#, "watch", json: true) == "")
    }

    @Test(arguments: [
        (#"{"class":"ERROR","code":"not-permitted","message":"only members of breeze may change state"}"#, "only members of breeze may change state\n"),
        (#"{"class":"ERROR","code":"not-found","message":"no city with id 1"}"#, "no city with id 1 (not-found)\n"),
        (#"{"class":"ERROR","code":"not-found","message":"no city matches \"xqzv\""}"#, "no city matches \"xqzv\"; check its spelling, or list the places whose names start with its first letters ('breezectl search' and a few letters)\n"),
        (#"{"class":"ERROR"}"#, "breezed refused the request (internal)\n"),
    ])
    func anErrorIsItsMessage(line: String, text: String) {
        #expect(Self.render(line, "select") == text)
    }

    @Test func aLineThatIsNotJSONIsSaidToBeSo() {
        #expect(Self.render("{", "status").hasPrefix("breezed sent a line that is not JSON: "))
        #expect(ReplyText.render([0xC3, 0x28], command: "status") == "breezed sent a line that is not UTF-8 text\n")
    }
}

/// `fleet`'s fix ages, at the precision the node's time has: to the second for exact positions, to the minute for
/// the coarse ones (their time is rounded down to the minute).
@Suite struct FleetAgeTests {
    static let now = 1_796_032_949.0  // 2026-11-30T10:02:29Z

    static func age(_ location: String) throws -> String {
        let table = try ReplyText.fleet([(node: "pi", location: location)], now: now)
        let row = table.split(separator: "\n").last.map(String.init) ?? ""
        return String(row.dropFirst(16 + 1 + 13 + 1 + 32 + 1).prefix(9)).trimmingSpaces()
    }

    @Test func aCoarseTimeGivesAnAgeToTheMinute() throws {
        let coarse = #"{"class":"LOCATION","name":"Bern, Switzerland","source":"gpsd","time":"2026-11-30T10:02:00.000Z","precise":false}"#
        #expect(try Self.age(coarse) == "< 1 min", "29 s from a time rounded down: not 29 s")
        let older = coarse.replacingOccurrences(of: "10:02:00", with: "09:59:00")
        #expect(try Self.age(older) == "3 min")
        let exact = #"{"class":"LOCATION","name":"Bern, Switzerland","source":"gpsd","time":"2026-11-30T10:02:20.000Z","precise":true}"#
        #expect(try Self.age(exact) == "9 s")
        let city = #"{"class":"LOCATION","name":"Bern, Switzerland","source":"manual","time":null}"#
        #expect(try Self.age(city) == "—")
    }
}
