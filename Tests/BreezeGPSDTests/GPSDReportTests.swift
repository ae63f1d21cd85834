import BreezeCore
import Testing

@testable import BreezeGPSD

/// gpsd's report lines read strictly: the JSON, each field's type and range, the time.
@Suite struct GPSDReportTests {
    func parse(_ line: String) throws(GPSDReportError) -> GPSDReport {
        try GPSDReport.parse(Array(line.utf8))
    }

    func error(_ line: String) -> GPSDReportError? {
        do {
            _ = try parse(line)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsARealTPVFromGpsd322() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/7","status":2,"mode":3,"time":"2017-07-19T08:50:00.800Z","ept":0.005,"lat":-34.906226300,"lon":138.608119700,"altHAE":25.4240,"altMSL":28.8950,"alt":28.8950,"epv":1.602,"track":31.4718,"magtrack":39.3946,"magvar":7.9,"speed":0.030,"eps":0.23,"geoidSep":-1.662,"eph":1.132}"#
        guard case .position(let position) = try parse(line) else { Issue.record("not a position"); return }
        #expect(position.coordinate == Coordinate(latitude: -34.9062263, longitude: 138.6081197))
        #expect(position.mode == .threeD)
        #expect(position.time == GPSDTime(seconds: 1_500_454_200, nanoseconds: 800_000_000))
        #expect(position.altitude == 28.895)
        #expect(position.horizontalError == 1.132)
        #expect(position.speed == 0.03)
        #expect(position.track == 31.4718)
    }

    @Test func readsA3DFixWithoutTimeAsSomeReceiversSendIt() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/1","status":8,"mode":3,"lat":40.397666667,"lon":-3.652716667,"altHAE":747.3000,"altMSL":695.7000,"alt":695.7000,"magvar":-0.5,"geoidSep":51.600,"eph":38.000}"#
        guard case .position(let position) = try parse(line) else { Issue.record("not a position"); return }
        #expect(position.time == nil)
        #expect(position.altitude == 695.7)
    }

    @Test func aTwoDFixHasNoAltitude() throws {
        let line = #"{"class":"TPV","mode":2,"lat":1.5,"lon":2.5,"altMSL":100}"#
        guard case .position(let position) = try parse(line) else { Issue.record("not a position"); return }
        #expect(position.mode == .twoD)
        #expect(position.altitude == nil)
    }

    @Test(arguments: [
        (#"{"class":"TPV","mode":1}"#, GPSDReport.noFix),
        (#"{"class":"TPV","mode":0,"lat":1,"lon":2}"#, .other("TPV")),
        (#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#, .other("VERSION")),
        (#" {"class" : "SKY", "satellites" : [ {"PRN":1,"used":false} ] }  "# + "\r", .other("SKY")),
    ])
    func readsOtherReports(line: String, report: GPSDReport) throws {
        #expect(try parse(line) == report)
    }

    @Test(arguments: [
        (#"{"class":"TPV","mode":3,"lat":0x2E,"lon":7.5}"#, nil),
        (#"{"class":"TPV","mode":3,"lat":-33.86abc,"lon":151.2}"#, nil),
        (#"{"class":"TPV","mode":3,"lat":01,"lon":7.5}"#, nil),
        (#"{"class":"TPV","mode":3,"lat":+1,"lon":7.5}"#, nil),
        (#"{"class":"TPV","mode":3,"lat":NaN,"lon":7.5}"#, nil),
        (#"{"class":"TPV","mode":3,"lat":1.,"lon":7.5}"#, nil),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":7.5,}"#, nil),
        (#"{"class":"TPV","mode":3,"lat":1,"lat":2,"lon":7.5}"#, nil),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":7.5}x"#, nil),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":7.5}{"class":"TPV"}"#, nil),
        (#"{"class":"TPV\ud800","mode":3,"lat":1,"lon":7.5}"#, nil),
        (#"["class","TPV"]"#, nil),
        (#"{"mode":3,"lat":1,"lon":7.5}"#, "class"),
        (#"{"class":7}"#, "class"),
        (#"{"class":"TPV","lat":1,"lon":7.5}"#, "mode"),
        (#"{"class":"TPV","mode":99,"lat":1,"lon":7.5}"#, "mode"),
        (#"{"class":"TPV","mode":-1,"lat":1,"lon":7.5}"#, "mode"),
        (#"{"class":"TPV","mode":2.5,"lat":1,"lon":7.5}"#, "mode"),
        (#"{"class":"TPV","mode":1e300,"lat":1,"lon":7.5}"#, "mode"),
        (#"{"class":"TPV","mode":"3","lat":1,"lon":7.5}"#, "mode"),
        (#"{"class":"TPV","mode":3,"lat":90.0001,"lon":7.5}"#, "lat"),
        (#"{"class":"TPV","mode":3,"lat":"1","lon":7.5}"#, "lat"),
        (#"{"class":"TPV","mode":3,"lon":7.5}"#, "lat"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":-180.5}"#, "lon"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":null}"#, "lon"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"eph":-0.1}"#, "eph"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"speed":-1}"#, "speed"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"track":360}"#, "track"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"track":-0.5}"#, "track"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"altMSL":1e7}"#, "altMSL"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"alt":true}"#, "alt"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"time":1714557605}"#, "time"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"time":"2024-02-30T10:00:00Z"}"#, "time"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"time":"2024-05-01 10:00:00Z"}"#, "time"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"time":"2024-05-01T24:00:00Z"}"#, "time"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"time":"2024-05-01T10:00:00.Z"}"#, "time"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"time":"2024-05-01T10:00:00.1234567890Z"}"#, "time"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2,"time":"2024-05-01T10:00:00+02:00"}"#, "time"),
    ] as [(String, String?)])
    func refusesABadReportNamingTheField(line: String, field: String?) {
        let refused = error(line)
        #expect(refused != nil, "accepted: \(line)")
        #expect(refused?.field == field, "\(String(describing: refused))")
    }

    @Test func refusesNestingDeeperThanAnyReport() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(error(#"{"class":"TPV","x":"# + deep + "}")?.field == nil)
        let fine = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(error(#"{"class":"SKY","x":"# + fine + "}") == nil)
    }

    @Test func readsEscapedStrings() throws {
        #expect(try parse(#"{"class":"\u0054PV","mode":1}"#) == .noFix)
        #expect(try parse(#"{"class":"\ud83d\ude00\n\"\\\/"}"#) == .other("😀\n\"\\/"))
        #expect(error(#"{"class":"TPV"# + "\u{1}" + #""}"#) != nil)
    }

    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0, 0),
        ("2017-07-19T08:50:00.800Z", 1_500_454_200, 800_000_000),
        ("1981-01-06T00:00:00.000000001Z", 347_587_200, 1),
        ("2016-12-31T23:59:60Z", 1_483_228_800, 0),
        ("2024-02-29T12:00:00.5Z", 1_709_208_000, 500_000_000),
        ("0000-03-01T00:00:00Z", -62_162_035_200, 0),
        ("9999-12-31T23:59:59.999999999Z", 253_402_300_799, 999_999_999),
    ] as [(String, Int64, Int32)])
    func readsISO8601Times(text: String, seconds: Int64, nanoseconds: Int32) {
        #expect(GPSDTime(iso8601: text) == GPSDTime(seconds: seconds, nanoseconds: nanoseconds))
    }

    @Test(arguments: ["", "Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z",
                      "2024-01-01T00:60:00Z", "2024-01-01T00:00:61Z", "-024-01-01T00:00:00Z", "2024-01-01T00:00:00"])
    func refusesTimesThatAreNotTimes(text: String) {
        #expect(GPSDTime(iso8601: text) == nil)
    }
}
