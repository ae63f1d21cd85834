import BreezeCore
import BreezeProtocol
import Testing

/// Every dataset goes on the wire through one function: the common header, then its report's members.
@Suite struct DatasetMessageBodyTests {
    static let place = DatasetMessageTests.bern

    @Test func everyDatasetsReportHasAMessageBody() {
        for dataset in Dataset.allCases {
            #expect(dataset.reportType is any DatasetMessageBody.Type, "\(dataset) has no message body")
        }
    }

    /// Every key a Home Assistant template reads is there, empty, without a report: the sensors go to "unknown".
    @Test func withoutAReportTheKeysTheSensorsReadAreNull() throws {
        let keys = Dataset.allCases.map { dataset in
            DatasetMessage.message(dataset, status: .loading, place: Self.place, report: nil, fetchedAt: nil, now: 0)
                .objectKeys
        }
        let header = ["class", "state", "place", "place_id", "fetched", "age_s"]
        #expect(keys == [header + ["us_aqi", "pollutants"], header + ["highest"], header, header + ["temperature_c", "condition"]])
        let empty = Dataset.allCases.map { DatasetMessage.empty($0, status: .loading).objectKeys }
        #expect(empty == [["class", "state", "us_aqi", "pollutants"], ["class", "state", "highest"], ["class", "state"],
                          ["class", "state", "temperature_c", "condition"]])
    }

    @Test func theHeaderCarriesTheClassStateReasonPlaceAndAge() throws {
        let report = ClimateReport(month: 6, day: 1, points: [.init(year: 1990, maximum: Temperature(celsius: 21.04))])
        let state = DatasetState(place: Self.place, status: .stale(reason: "http: 500"), report: report, fetchedAt: 1_000)
        let message = try JSONValue.parse(DatasetMessage.message(state, now: 1_090.4).encoded())
        #expect(message["class"] == .string("CLIMATE"))
        #expect(message["state"] == .string("stale"))
        #expect(message["reason"] == .string("http: 500"))
        #expect(message["place_id"] == .number(2661552))
        #expect(message["age_s"] == .number(90))
        guard case .array(let points)? = message["points"] else { Issue.record("no points"); return }
        #expect(points.first?["max_c"] == .number(21))
        #expect(message["month"] == .number(6))
    }

    @Test func theExistentialPathGivesTheSameObjectAsTheTypedOne() {
        let report = PollenReport(
            provider: .openMeteo, time: 0, entries: [.init(code: "BIRCH", name: "Birch", kind: .plant, level: .high)])
        let state = DatasetState(place: Self.place, status: .fresh, report: report, fetchedAt: 10)
        let typed = DatasetMessage.message(state, now: 20)
        let erased = DatasetMessage.message(
            .pollen, status: .fresh, place: Self.place, report: report as any DatasetReport, fetchedAt: 10, now: 20)
        #expect(typed == erased)
        #expect(typed["highest"] == .number(Double(PollenLevel.high.rawValue)))
    }

    @Test func eachDatasetsHomeAssistantSensorsAndWhichWaitForData() {
        let bodies = Dataset.allCases.map { $0.reportType as? any DatasetMessageBody.Type }
        #expect(bodies.map { $0?.sensors.map(\.id) ?? [] } == [
            ["us_aqi", "pm2_5", "pm10", "no2", "o3", "so2", "co"], ["pollen"], [], ["temperature", "condition"],
        ])
        #expect(bodies.map { $0?.sensorsWaitForData } == [false, false, false, true])
        for sensor in bodies.flatMap({ $0?.sensors ?? [] }) {
            guard case .string(let template)? = sensor.members.first(where: { $0.0 == "value_template" })?.1 else {
                Issue.record("\(sensor.id) has no value_template")
                continue
            }
            #expect(template.contains("value_json."), "\(sensor.id)")
        }
    }
}

extension JSONValue {
    fileprivate var objectKeys: [String] {
        if case .object(let members) = self { return members.map(\.0) }
        return []
    }
}
