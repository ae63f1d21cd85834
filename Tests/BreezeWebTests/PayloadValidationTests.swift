import BreezeCore
import BreezeTestSupport
import BreezeWeb
import Foundation
import Testing

/// Every number a web API sends is checked before it becomes a report: out of range, or out of what Swift's
/// integers hold, is a `badPayload` naming the field, never a trap and never a report.
@Suite struct PayloadValidationTests {
    static func openMeteoCurrent(offset: String = "3600", _ members: String) -> Data {
        Data("""
            {"latitude":47.37,"longitude":8.55,"utc_offset_seconds":\(offset),"current":{"time":"2026-11-30T10:00",\
            "interval":3600,\(members)}}
            """.utf8)
    }

    static let air = #""us_aqi":27,"pm10":12.1,"pm2_5":5.3,"carbon_monoxide":181.0,"nitrogen_dioxide":14.2,"# +
        #""sulphur_dioxide":null,"ozone":61.0"#

    static func expectBadPayload(
        naming field: String, _ body: () throws(WebError) -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try body()
            Issue.record("accepted; expected bad-payload naming \(field)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .badPayload, "\(error)", sourceLocation: sourceLocation)
            #expect(error.reason.contains(field), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aRealShapedAirQualityAnswerIsAccepted() throws {
        let report = try AirQualityClient.report(from: Self.openMeteoCurrent(Self.air))
        #expect(report.usAQI == 27)
        #expect(report.reading(.sulphurDioxide)?.value == nil)
        #expect(report.time == 1_796_032_800 - 3_600)
    }

    @Test(arguments: ["1e19", "-1", "1e308", "100000", "-1e19"])
    func anAQIOutOfRangeIsABadPayloadNamingIt(value: String) {
        let body = Self.openMeteoCurrent(Self.air.replacingOccurrences(of: #""us_aqi":27"#, with: #""us_aqi":\#(value)"#))
        Self.expectBadPayload(naming: "us_aqi") { () throws(WebError) in _ = try AirQualityClient.report(from: body) }
    }

    @Test func anAQIAboveTheScaleButPlausibleIsKept() throws {
        // Smoke from large wildfires has driven Open-Meteo's index past 500, where the EPA's scale ends.
        let body = Self.openMeteoCurrent(Self.air.replacingOccurrences(of: #""us_aqi":27"#, with: #""us_aqi":731"#))
        let report = try AirQualityClient.report(from: body)
        #expect(report.usAQI == 731)
        #expect(report.label == .hazardous)
    }

    @Test(arguments: [("pm2_5", "-3"), ("pm10", "1e12"), ("ozone", "-0.5"), ("carbon_monoxide", "1e300")])
    func aConcentrationOutOfRangeIsABadPayloadNamingIt(field: String, value: String) {
        let members = Self.air.replacingOccurrences(
            of: #""\#(field)":[0-9.]+"#, with: #""\#(field)":\#(value)"#, options: .regularExpression)
        Self.expectBadPayload(naming: field) { () throws(WebError) in
            _ = try AirQualityClient.report(from: Self.openMeteoCurrent(members))
        }
    }

    @Test(arguments: ["-4611686018427387904", "4611686018427387904", "64801", "-64801", "3600.5"])
    func aUTCOffsetOutsideEighteenHoursIsABadPayloadNamingIt(offset: String) {
        Self.expectBadPayload(naming: "utc_offset_seconds") { () throws(WebError) in
            _ = try AirQualityClient.report(from: Self.openMeteoCurrent(offset: offset, Self.air))
        }
        Self.expectBadPayload(naming: "utc_offset_seconds") { () throws(WebError) in
            _ = try PollenClient.openMeteoReport(from: Self.openMeteoCurrent(offset: offset, #""birch_pollen":3"#))
        }
    }

    @Test(arguments: [-12 * 3_600, 14 * 3_600, 5 * 3_600 + 45 * 60])
    func everyRealUTCOffsetIsAccepted(offset: Int) throws {
        let report = try AirQualityClient.report(from: Self.openMeteoCurrent(offset: String(offset), Self.air))
        #expect(report.time == 1_796_032_800 - Double(offset))
    }

    @Test(arguments: ["-1", "1e12", "-1e19"])
    func aPollenCountOutOfRangeIsABadPayloadNamingIt(value: String) {
        let body = Self.openMeteoCurrent(#""alder_pollen":0,"birch_pollen":\#(value),"grass_pollen":null"#)
        Self.expectBadPayload(naming: "birch_pollen") { () throws(WebError) in
            _ = try PollenClient.openMeteoReport(from: body)
        }
    }

    static func daily(_ maximum: String, date: String = "2026-11-30") -> Data {
        Data(#"{"utc_offset_seconds":3600,"daily":{"time":["\#(date)"],"temperature_2m_max":[\#(maximum)]}}"#.utf8)
    }

    @Test(arguments: ["1000", "-300", "1e19", "100.1"])
    func aTemperatureOutOfRangeIsABadPayloadNamingIt(value: String) {
        Self.expectBadPayload(naming: "temperature_2m_max") { () throws(WebError) in
            _ = try ClimateClient.days(from: Self.daily(value))
        }
    }

    @Test func aMissingTemperatureIsNoValueNotAnError() throws {
        #expect(try ClimateClient.days(from: Self.daily("null")).first?.maximum == nil)
        #expect(try ClimateClient.days(from: Self.daily("-89.2")).first?.maximum == -89.2)
    }

    @Test(arguments: ["0001-01-01", "9999-12-31", "1979-06-01"])
    func aForecastDayFarFromNowIsABadPayload(date: String) {
        // A forecast for year 9999 would ask the archive for every tenth year since 1980: 800 requests.
        Self.expectBadPayload(naming: "daily.time") { () throws(WebError) in
            _ = try ClimateClient.today(from: Self.daily("12", date: date))
        }
    }

    static func google(date: String = #"{"year":2026,"month":11,"day":30}"#, value: String = "3") -> Data {
        Data("""
            {"regionCode":"CH","dailyInfo":[{"date":\(date),"pollenTypeInfo":[{"code":"TREE","displayName":"Tree",\
            "indexInfo":{"code":"UPI","value":\(value),"category":"Moderate"}}]}]}
            """.utf8)
    }

    @Test func aRealShapedGoogleAnswerIsAccepted() throws {
        let report = try PollenClient.googleReport(from: Self.google())
        #expect(report.entries.first?.level == .moderate)
        #expect(report.time == Double(CivilDate(year: 2026, month: 11, day: 30).daysSince1970) * 86_400)
    }

    @Test(arguments: [
        #"{"year":9223372036854775807,"month":1,"day":1}"#, #"{"year":-9223372036854775808,"month":1,"day":1}"#,
        #"{"year":2026,"month":13,"day":1}"#, #"{"year":2026,"month":2,"day":30}"#,
        #"{"year":2026,"month":1,"day":-9223372036854775808}"#, #"{"year":1e30,"month":1,"day":1}"#,
        #"{"year":2026.5,"month":1,"day":1}"#,
    ])
    func aGoogleDateThatIsNoDayIsABadPayload(date: String) {
        Self.expectBadPayload(naming: "dailyInfo[0].date") { () throws(WebError) in
            _ = try PollenClient.googleReport(from: Self.google(date: date))
        }
    }

    @Test(arguments: ["7", "-1", "1e19"])
    func aGoogleIndexOffTheScaleIsABadPayload(value: String) {
        Self.expectBadPayload(naming: "indexInfo.value") { () throws(WebError) in
            _ = try PollenClient.googleReport(from: Self.google(value: value))
        }
    }

    static let coordinate = Coordinate(latitude: 47.37, longitude: 8.55)

    static func nominatim(placeID: String) -> Data {
        Data(#"{"place_id":\#(placeID),"address":{"town":"Fixture Town","country":"Fixture Land","country_code":"fx"}}"#.utf8)
    }

    @Test func aNominatimPlaceIsNamedByItsNegatedID() throws {
        #expect(try NominatimClient.place(from: Self.nominatim(placeID: "123456"), at: Self.coordinate)?.id == -123456)
    }

    @Test(arguments: ["-9223372036854775808", "0", "-5", "9223372036854775807", "1e30", "12.5"])
    func aNominatimPlaceIDOutOfRangeIsABadPayload(placeID: String) {
        Self.expectBadPayload(naming: "place_id") { () throws(WebError) in
            _ = try NominatimClient.place(from: Self.nominatim(placeID: placeID), at: Self.coordinate)
        }
    }

    static func search(id: String = "2657896", population: String = "341730") -> Data {
        Data("""
            {"results":[{"id":\(id),"name":"Zurich","latitude":47.36667,"longitude":8.55,"country":"Switzerland",\
            "country_code":"CH","admin1":"Zurich","population":\(population)}]}
            """.utf8)
    }

    @Test(arguments: [("id", "-9223372036854775808"), ("id", "0"), ("id", "9223372036854775807"),
        ("id", "1.5"), ("id", "1e30"), ("population", "-1"), ("population", "9223372036854775807"),
        ("population", "1e30")])
    func aSearchResultNumberOutOfRangeIsABadPayload(field: String, value: String) {
        let body = field == "id" ? Self.search(id: value) : Self.search(population: value)
        Self.expectBadPayload(naming: "results[0].\(field)") { () throws(WebError) in
            _ = try GeocodingClient.places(from: body)
        }
    }

    @Test func aSearchResultsNameIsCappedInLength() throws {
        let long = String(repeating: #"Z\u001b"#, count: 100_000)
        let body = Data(#"{"results":[{"id":1,"name":"\#(long)","latitude":1,"longitude":2}]}"#.utf8)
        let places = try GeocodingClient.places(from: body)
        #expect(places.first.map { $0.name.count <= PayloadLimits.textLength } == true)
    }

    @Test func aDailyAnswerOverTheDayBoundIsABadPayload() throws {
        func body(_ count: Int) -> Data {
            let days = (0..<count).map { _ in #""2026-11-30""# }.joined(separator: ",")
            let values = (0..<count).map { _ in "12.5" }.joined(separator: ",")
            return Data(#"{"daily":{"time":[\#(days)],"temperature_2m_max":[\#(values)]}}"#.utf8)
        }
        #expect(try ClimateClient.days(from: body(PayloadLimits.days)).count == PayloadLimits.days)
        Self.expectBadPayload(naming: "more than \(PayloadLimits.days)") { () throws(WebError) in
            _ = try ClimateClient.days(from: body(PayloadLimits.days + 1))
        }
    }

    @Test func aGoogleAnswerOverTheEntryBoundIsABadPayload() throws {
        func body(_ count: Int) -> Data {
            let plants = (0..<count).map { #"{"code":"P\#($0)","indexInfo":{"value":1}}"# }.joined(separator: ",")
            return Data(#"{"dailyInfo":[{"date":{"year":2026,"month":11,"day":30},"plantInfo":[\#(plants)]}]}"#.utf8)
        }
        #expect(try PollenClient.googleReport(from: body(PlausibleRange.pollenEntries)).entries.count == PlausibleRange.pollenEntries)
        Self.expectBadPayload(naming: "pollen types and plants") { () throws(WebError) in
            _ = try PollenClient.googleReport(from: body(PlausibleRange.pollenEntries + 1))
        }
    }

    @Test func searchResultsPastTheBoundAreLeftOut() throws {
        let result = #"{"id":1,"name":"Z","latitude":1,"longitude":2}"#
        let body = Data(#"{"results":[\#(Array(repeating: result, count: PayloadLimits.searchResults + 5).joined(separator: ","))]}"#.utf8)
        #expect(try GeocodingClient.places(from: body).count == PayloadLimits.searchResults)
    }

    @Test func deeplyNestedJSONIsABadPayloadNotACrash() {
        let deep = Data((String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)).utf8)
        Self.expectBadPayload(naming: "not valid JSON") { () throws(WebError) in _ = try AirQualityClient.report(from: deep) }
        let object = Data((String(repeating: #"{"current":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)).utf8)
        Self.expectBadPayload(naming: "not valid JSON") { () throws(WebError) in _ = try AirQualityClient.report(from: object) }
    }

    @Test func aServersReasonIsKeptRawButCappedInLength() async throws {
        let fixture = try await WebFixture()
        defer { fixture.stop() }
        let hostile = String(repeating: "\u{1B}[2J\u{07}\r\u{00}", count: 50_000)
        try await fixture.fault("400", path: "/v1/air-quality", reason: hostile)
        let client = AirQualityClient(
            http: HTTPClient(userAgent: "breezed-tests/1", timeout: 5), base: fixture.baseURL)
        let error = await thrownError(WebError.self) { try await client.fetch(Self.coordinate) }
        #expect(error?.code == .badRequest)
        #expect((error?.reason.count ?? .max) <= WebError.maximumReasonLength, "\(error?.reason.count ?? 0) characters")
        #expect(error?.reason.hasPrefix("\u{1B}[2J\u{07}\r\u{00}") == true, "the raw text is kept")
        #expect(WebError(.transport, String(repeating: "x", count: 1_000_000)).reason.count <= WebError.maximumReasonLength)
    }
}
