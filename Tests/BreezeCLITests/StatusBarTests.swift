import BreezeCLI
import BreezeProtocol
import Foundation
import Testing

/// The status-bar line of `watch --waybar`, `--i3bar` and `--format` for each state breezed can be in: the class
/// names the state before the AQI category, the tooltip gives each dataset's age and reason, and nothing old or
/// missing passes for current.
@Suite struct StatusBarTests {
    /// 2026-11-30T10:02:11Z, when the objects below were fetched.
    static let fetched = 1_796_032_931.0
    static let location = #"{"class":"LOCATION","name":"Bern, Switzerland","city":"Bern","country_code":"CH","source":"manual","state":"authorized"}"#
    static let permission = #"{"class":"PERMISSION","state":"authorized","message":"Position from gpsd"}"#

    static func air(_ state: String, aqi: Int? = 26, category: String = "good", reason: String? = nil) -> String {
        var members = [#""class":"AIR""#, #""state":"\#(state)""#, #""place":"Bern, Switzerland""#]
        if let reason { members.append(#""reason":"\#(reason)""#) }
        if let aqi {
            members += [#""fetched":"2026-11-30T10:02:11.000Z""#, #""us_aqi":\#(aqi)"#, #""category":"\#(category)""#,
                        #""label":"Good""#, #""emoji":"🙂""#, #""tips":["It's a great day to be active outside."]"#]
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static let weather = #"{"class":"WEATHER","state":"stale","reason":"http: 503","fetched":"2026-11-30T09:02:11.000Z","temperature_c":3.4,"condition":"Overcast","emoji":"☁️","daily":[{"max_c":5.1,"min_c":-0.4}]}"#

    /// The Waybar object for `lines`, `minutes` after the fetch.
    static func waybar(_ lines: [String], minutes: Double = 4, format: String? = nil, outage: String? = nil) throws -> [String: Any] {
        let line = ReplyText.statusBar(lines, format: format, waybar: true, now: fetched + minutes * 60, outage: outage)
        #expect(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" }, "one line: \(line)")
        return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    @Test func freshDataIsClassedByItsAQICategory() throws {
        let object = try Self.waybar([Self.permission, Self.location, Self.air("fresh")])
        #expect(object["class"] as? [String] == ["good"])
        #expect(object["alt"] as? String == "good")
        #expect(object["text"] as? String == "🙂 26 Bern")
        #expect(object["percentage"] as? Int == 5, "26 of 500")
        let tooltip = try #require(object["tooltip"] as? String)
        let lines = tooltip.split(separator: "\n").map(String.init)
        #expect(lines.first == "Bern, Switzerland · manual", "\(tooltip)")
        #expect(lines.contains("AQI 26 Good (fresh, 4 min old)"), "\(tooltip)")
        #expect(lines.contains("It's a great day to be active outside."), "\(tooltip)")
    }

    @Test(arguments: [("stale", 26, ["stale", "good"]), ("failed", nil, ["failed"]), ("offline", nil, ["offline"]),
                      ("unavailable", nil, ["unavailable"]), ("loading", nil, ["loading"])])
    func aStateThatIsNotFreshComesBeforeTheCategory(state: String, aqi: Int?, classes: [String]) throws {
        let object = try Self.waybar([Self.location, Self.air(state, aqi: aqi, reason: "http: 500 Internal Server Error")])
        #expect(object["class"] as? [String] == classes)
        #expect(object["alt"] as? String == classes[0])
        #expect((object["percentage"] != nil) == (aqi != nil))
        #expect(object["text"] as? String == (aqi == nil ? "Bern" : "🙂 26 Bern"))
    }

    @Test func theTooltipGivesAFailuresReasonAndEachDatasetsAge() throws {
        let failed = try Self.waybar([Self.location, Self.air("failed", aqi: nil, reason: "http: 500 Internal Server Error"), Self.weather])
        let tooltip = try #require(failed["tooltip"] as? String)
        #expect(tooltip.contains("Air quality (failed: http: 500 Internal Server Error)"), "\(tooltip)")
        #expect(!tooltip.contains("AQI ?"), "\(tooltip)")
        #expect(tooltip.contains("Weather ☁️ 3.4°C Overcast (stale, 64 min old: http: 503)"), "\(tooltip)")
        let stale = try Self.waybar([Self.location, Self.air("stale", reason: "transport: refused")], minutes: 11)
        #expect((stale["tooltip"] as? String)?.contains("AQI 26 Good (stale, 11 min old: transport: refused)") == true, "\(stale)")
    }

    @Test func thePercentageIsTheAQIOfItsScaleOf500() throws {
        #expect(try Self.waybar([Self.location, Self.air("fresh", aqi: 150)])["percentage"] as? Int == 30)
        #expect(try Self.waybar([Self.location, Self.air("fresh", aqi: 720)])["percentage"] as? Int == 100)
        #expect(try Self.waybar([Self.location, Self.air("fresh", aqi: 0)])["percentage"] as? Int == 0)
    }

    @Test func aKnownPlaceIsNeverNoPlaceYet() throws {
        let placeFirst = try Self.waybar([Self.location])
        #expect((placeFirst["tooltip"] as? String)?.hasPrefix("Bern, Switzerland") == true, "\(placeFirst)")
        #expect(placeFirst["class"] as? [String] == ["loading"])
        let airFirst = try Self.waybar([Self.air("fresh")])
        #expect((airFirst["tooltip"] as? String)?.hasPrefix("Bern, Switzerland") == true, "\(airFirst)")
    }

    @Test func withNoPlaceTheOldAirQualityIsNotShown() throws {
        let withdrawn = #"{"class":"LOCATION","state":"denied","name":null}"#
        let object = try Self.waybar([Self.location, Self.air("fresh"), withdrawn])
        #expect(object["class"] as? [String] == ["no-place"])
        #expect(object["text"] as? String == "No place")
        #expect(object["percentage"] == nil)
        #expect((object["tooltip"] as? String)?.hasPrefix("No place yet") == true)
        #expect(try Self.waybar([Self.permission])["class"] as? [String] == ["no-place"])
    }

    @Test func anUnreachableDaemonIsUnavailableWithItsReason() throws {
        let object = try Self.waybar([Self.location, Self.air("fresh")], outage: "breezed is stopping")
        #expect(object["class"] as? [String] == ["unavailable"])
        #expect(object["text"] as? String == "breezed unavailable")
        #expect((object["tooltip"] as? String)?.contains("breezed is stopping") == true)
        #expect(object["percentage"] == nil)
        let formatted = try Self.waybar([], format: "{aqi} {city}", outage: "breezed is stopping")
        #expect(formatted["text"] as? String == "breezed unavailable")
    }

    @Test func waybarTakesItsTextFromTheFormat() throws {
        let object = try Self.waybar([Self.location, Self.air("stale")], format: "{city}: AQI {aqi} ({air_state})")
        #expect(object["text"] as? String == "Bern: AQI 26 (stale)")
        #expect(object["class"] as? [String] == ["stale", "good"])
    }

    /// gpsd went quiet past the fix timeout, or went away: breezed says so in the LOCATION's state, then shows the
    /// place of the last fix as a stand-in (`last-fix`). The bar must not go on showing the place as current; a city
    /// standing in before any fix says what it is instead.
    @Test func aFixOlderThanTheTimeoutIsSaidInTextAndClass() throws {
        let live = #"{"class":"LOCATION","name":"Adelboden, Switzerland","city":"Adelboden","source":"gpsd","accuracy":17,"time":"2026-11-30T09:50:00.000Z","state":"authorized","stand_in":null,"mode":3}"#
        let current = try Self.waybar([Self.permission, live, Self.air("fresh")])
        #expect(current["class"] as? [String] == ["good"])
        #expect(current["text"] as? String == "🙂 26 Adelboden")
        #expect((current["tooltip"] as? String)?.hasPrefix("Adelboden, Switzerland · gpsd, 3D fix") == true, "\(current)")

        let timedOut = live.replacingOccurrences(of: #""state":"authorized""#, with: #""state":"unavailable""#)
        let noFix = #"{"class":"PERMISSION","state":"unavailable","reason":"no-fix","message":"gpsd has sent no fix for 30 s; the place of its last fix is shown meanwhile"}"#
        let old = try Self.waybar([noFix, timedOut, Self.air("fresh")])
        #expect(old["class"] as? [String] == ["no-fix", "good"])
        #expect(old["text"] as? String == "🙂 26 Adelboden (no fix)")

        let lastFix = timedOut.replacingOccurrences(of: #""stand_in":null"#, with: #""stand_in":"last-fix""#)
        let standing = try Self.waybar([noFix, lastFix, Self.air("fresh")])
        #expect(standing["class"] as? [String] == ["no-fix", "good"])
        #expect(standing["text"] as? String == "🙂 26 Adelboden (no fix)")
        let tooltip = try #require(standing["tooltip"] as? String)
        #expect(tooltip.hasPrefix("Adelboden, Switzerland · no fix, last from gpsd"), "\(tooltip)")
        #expect(tooltip.contains("No fix: gpsd has sent no fix for 30 s; the place of its last fix is shown meanwhile; last fix 16 min ago"), "\(tooltip)")

        // Before any fix, a city stands in and says which kind it is; it is not a lost fix.
        let none = #"{"class":"PERMISSION","state":"unavailable","reason":"not-running","message":"gpsd is not running"}"#
        for (word, title) in [("fallback", "fallback city"), ("saved", "saved city"), ("restored", "last known place")] {
            let city = Self.location.replacingOccurrences(of: #""state":"authorized""#, with: #""state":"unavailable","stand_in":"\#(word)""#)
            let bar = try Self.waybar([none, city, Self.air("fresh")])
            #expect(bar["class"] as? [String] == ["good"], "\(word)")
            #expect(bar["text"] as? String == "🙂 26 Bern (\(title))", "\(word)")
        }
        // A selected city is the place the user chose: nothing after its name.
        let selected = Self.location.replacingOccurrences(of: #""state":"authorized""#, with: #""state":"authorized","stand_in":"selected""#)
        #expect(try Self.waybar([Self.permission, selected, Self.air("fresh")])["text"] as? String == "🙂 26 Bern")
        #expect(try Self.waybar([none, Self.location, Self.air("fresh")])["class"] as? [String] == ["good"])
    }

    @Test(arguments: [
        ([location, air("fresh")], nil as String?, "Good"), ([location, air("fresh", aqi: 160, category: "unhealthy")], nil, "Critical"),
        ([location, air("stale", aqi: 160, category: "unhealthy")], nil, "Critical"),
        ([location, air("stale")], nil, "Warning"), ([location, air("failed", aqi: nil)], nil, "Warning"),
        ([location], nil, "Idle"), ([location, air("fresh")], "breezed is stopping", "Warning"),
    ])
    func i3barGivesTextAndAState(lines: [String], outage: String?, state: String) throws {
        let line = ReplyText.statusBar(lines, i3bar: true, now: Self.fetched, outage: outage)
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        #expect(Set(object.keys) == ["text", "state"])
        #expect(object["state"] as? String == state, "\(line)")
        #expect((object["text"] as? String)?.isEmpty == false)
    }

    /// Every token the help lists gives a value once its object is there.
    @Test func everyDocumentedTokenWorks() throws {
        let help = ArgumentTests.run(["help", "watch"]).output
        // Taken apart before #require: Swift Testing 6.0 expands a chain of calls in it with a `try` each.
        let tokens = help.components(separatedBy: "--format <text>").last?.components(separatedBy: "An unknown").first
        let list = try #require(tokens)
        let documented = list.split(separator: "{").dropFirst().compactMap { $0.split(separator: "}").first.map(String.init) }
            .filter { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }
        #expect(documented.count >= 27, "\(documented)")
        let pollutants = ["pm2_5", "pm10", "nitrogen_dioxide", "sulphur_dioxide", "ozone", "carbon_monoxide"]
            .map { #"{"code":"\#($0)","value":1.5}"# }.joined(separator: ",")
        let objects = [
            #"{"class":"LOCATION","name":"Bern, Switzerland","city":"Bern","admin1":"Bern","country":"Switzerland","country_code":"CH","source":"manual","latitude":46.9,"longitude":7.4,"state":"authorized","stand_in":"selected"}"#,
            #"{"class":"PERMISSION","state":"authorized"}"#,
            #"{"class":"AIR","state":"fresh","us_aqi":26,"label":"Good","emoji":"🙂","category":"good","pollutants":[\#(pollutants)]}"#,
            #"{"class":"POLLEN","state":"fresh","highest":3}"#,
            #"{"class":"WEATHER","state":"fresh","temperature_c":3.4,"condition":"Overcast","emoji":"☁️","icon":"overcast","daily":[{"max_c":5.1,"min_c":-0.4}]}"#,
        ]
        for token in documented {
            let text = ReplyText.statusBar(objects, format: "<{\(token)}>", now: Self.fetched)
            #expect(text != "<>\n" && text.hasPrefix("<") && !text.contains("{"), "{\(token)} gave \(text)")
        }
    }

    /// With no daemon at the socket, a check made after connecting would exit 69 first: 64 shows it came before.
    @Test(arguments: ["{bogus}", "{aqi} {Temp}", "{}", "{city} {name ", "{aqi|?} {bogus|x}"])
    func anUnknownTokenIsAUsageErrorBeforeConnecting(format: String) throws {
        let run = ArgumentTests.run(["--socket", ArgumentTests.nowhere, "watch", "--once", "--format", format])
        if format == "{city} {name " {
            // An unclosed brace is text, not a token: this one is valid, and the run goes on to connect.
            #expect(run.status == 69, "\(run.errors)")
            #expect(run.errors.contains(ArgumentTests.nowhere), "\(run.errors)")
            return
        }
        #expect(run.status == 64, "\(run.errors)")
        #expect(run.errors.contains("unknown token {"), "\(run.errors)")
        #expect(run.errors.contains("{aqi}"), "the known tokens are listed: \(run.errors)")
        #expect(run.output.isEmpty)
    }
}
