import BreezeCLI
import BreezeCore
import BreezeProtocol
import BreezeTestSupport
import Testing

/// The advice in `AIR` and `POLLEN` as breezectl prints it: under the AQI summary, after the pollen levels, and
/// the first air tip in the Waybar tooltip.
@Suite struct TipsTextTests {
    /// An index value inside each label's range.
    static let labels: [(AirQualityLabel, Double)] = [
        (.excellent, 12), (.good, 40), (.moderate, 60), (.slightlyHigh, 90), (.unhealthyForSensitiveGroups, 120),
        (.unhealthy, 180), (.veryUnhealthy, 250), (.hazardous, 420),
    ]

    /// The `AIR` line the daemon sends for an index value.
    static func airLine(_ usAQI: Double) -> [UInt8] {
        let report = AirQualityReport(
            time: 1_780_000_000, usAQI: usAQI,
            readings: Pollutant.allCases.map { PollutantReading(pollutant: $0, value: 5) })
        let state = DatasetState(place: .bern, status: .fresh, report: report, fetchedAt: 1_780_000_100)
        return Array(DatasetMessage.message(state, now: 1_780_000_100).encoded().utf8)
    }

    /// The `POLLEN` line the daemon sends with one taxon at `level`.
    static func pollenLine(_ level: PollenLevel) -> [UInt8] {
        let entries = [PollenReport.Entry(code: "GRASS", name: "Grass", kind: .plant, level: level, grains: 30)]
        let report = PollenReport(provider: .openMeteo, time: 1_780_000_000, entries: entries)
        let state = DatasetState(place: .bern, status: .fresh, report: report, fetchedAt: 1_780_000_100)
        return Array(DatasetMessage.message(state, now: 1_780_000_100).encoded().utf8)
    }

    @Test(arguments: labels)
    func airAndStatusShowTheLabelsTipsUnderTheSummary(label: AirQualityLabel, value: Double) throws {
        for command in ["air", "status"] {
            let text = ReplyText.render(Self.airLine(value), command: command)
            let lines = text.split(separator: "\n").map(String.init)
            let summary = try #require(lines.firstIndex { $0.hasPrefix("  AQI ") && $0.hasSuffix(label.summary) })
            let shown = Array(lines[(summary + 1)...].prefix(label.healthTips.count))
            #expect(shown == label.healthTips.map { "  • " + $0 }, "\(command): \(lines)")
            let next = summary + label.healthTips.count + 1
            #expect(lines.count > next && lines[next].hasPrefix("  PM2.5"), "then the pollutants: \(lines)")
        }
    }

    @Test(arguments: PollenLevel.allCases)
    func pollenAndStatusShowTheLevelsTipsAfterTheLevels(level: PollenLevel) throws {
        for command in ["pollen", "status"] {
            let text = ReplyText.render(Self.pollenLine(level), command: command)
            let lines = text.split(separator: "\n").map(String.init)
            let entry = try #require(lines.firstIndex { $0.hasPrefix("  Grass") && $0.contains(level.title) })
            let shown = Array(lines[(entry + 1)...].prefix { $0.hasPrefix("  • ") })
            #expect(shown == level.healthTips.map { "  • " + $0 }, "\(command): \(lines)")
        }
    }

    @Test(arguments: labels)
    func theWaybarTooltipShowsTheFirstTip(label: AirQualityLabel, value: Double) throws {
        let output = ReplyText.render(Self.airLine(value), command: "watch", waybar: true)
        #expect(output.hasSuffix("\n"))
        let object = try JSONValue.parse(String(output.dropLast()))
        let tooltip = try #require(object["tooltip"]?.stringValue)
        let lines = tooltip.split(separator: "\n").map(String.init)
        let aqi = try #require(lines.firstIndex { $0.hasPrefix("AQI ") && $0.contains(" \(label.title) (") })
        #expect(lines.count > aqi + 1 && lines[aqi + 1] == label.healthTips[0], "\(tooltip)")
        #expect(label.healthTips.dropFirst().allSatisfy { !tooltip.contains($0) }, "only the first tip: \(tooltip)")
    }

    @Test func tipsThatAreNotTextAreLeftOutAndControlsAreShownVisibly() {
        let line = #"{"class":"AIR","state":"fresh","us_aqi":20,"summary":"s","tips":["a\u001b[2J",5,null,{"x":1}]}"#
        let text = ReplyText.render(Array(line.utf8), command: "air")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("  • ") } == [#"  • a\x1b[2J"#], "\(text)")
        let notAList = #"{"class":"POLLEN","state":"fresh","highest":3,"tips":"keep windows shut","entries":[]}"#
        #expect(!ReplyText.render(Array(notAList.utf8), command: "pollen").contains("•"))
    }
}
