import BreezeCore
import BreezeProtocol
import Testing

/// `AIR` and `POLLEN` carry the advice for their AQI label and highest pollen level as `tips`.
@Suite struct DatasetMessageTests {
    static let bern = Place(
        id: 2661552, name: "Bern", admin1: "Bern", country: "Switzerland", countryCode: "CH", population: 121631,
        coordinate: Coordinate(latitude: 46.94809, longitude: 7.44744))

    /// An index value inside each label's range.
    static let labels: [(AirQualityLabel, Double)] = [
        (.excellent, 12), (.good, 40), (.moderate, 60), (.slightlyHigh, 90), (.unhealthyForSensitiveGroups, 120),
        (.unhealthy, 180), (.veryUnhealthy, 250), (.hazardous, 420),
    ]

    static func air(usAQI: Double?) throws -> JSONValue {
        let report = AirQualityReport(
            time: 1_780_000_000, usAQI: usAQI,
            readings: Pollutant.allCases.map { PollutantReading(pollutant: $0, value: 5) })
        let state = DatasetState(place: bern, status: .fresh, report: report, fetchedAt: 1_780_000_100)
        return try JSONValue.parse(DatasetMessage.message(state, now: 1_780_000_100).encoded())
    }

    static func pollen(highest: PollenLevel?) throws -> JSONValue {
        var entries = [PollenReport.Entry(code: "BIRCH", name: "Birch", kind: .plant, level: highest, grains: 12.4)]
        if let highest, highest > .none {
            // A lower entry beside it: the advice goes by the highest.
            let lower = PollenLevel(rawValue: highest.rawValue - 1)
            entries.insert(PollenReport.Entry(code: "GRASS", name: "Grass", kind: .plant, level: lower), at: 0)
        }
        let report = PollenReport(provider: .openMeteo, time: 1_780_000_000, entries: entries)
        let state = DatasetState(place: bern, status: .fresh, report: report, fetchedAt: 1_780_000_100)
        return try JSONValue.parse(DatasetMessage.message(state, now: 1_780_000_100).encoded())
    }

    @Test(arguments: labels)
    func airCarriesItsLabelsTips(label: AirQualityLabel, value: Double) throws {
        let message = try Self.air(usAQI: value)
        #expect(message["label"]?.stringValue == label.title)
        #expect(message["tips"] == .array(label.healthTips.map(JSONValue.string)))
    }

    @Test func airWithoutAnIndexHasNoTips() throws {
        let message = try Self.air(usAQI: nil)
        #expect(message["us_aqi"] == .null)
        #expect(message["tips"] == nil)
    }

    @Test(arguments: PollenLevel.allCases)
    func pollenCarriesTheTipsOfItsHighestLevel(level: PollenLevel) throws {
        let message = try Self.pollen(highest: level)
        #expect(message["highest"]?.numberValue == Double(level.rawValue))
        #expect(message["tips"] == .array(level.healthTips.map(JSONValue.string)))
    }

    @Test func pollenWithoutLevelsHasNoTips() throws {
        let message = try Self.pollen(highest: nil)
        #expect(message["highest"] == .null)
        #expect(message["tips"] == nil)
    }
}
