import BreezeCore
import BreezeGPSD
import Testing

/// gpsd's report lines read strictly, one line at a time through a fresh filter: the JSON, each field's type and
/// range, the time.
@Suite struct GPSDReportTests {
    func event(_ line: String) -> LocationSourceEvent? {
        var filter = FixFilter()
        return filter.event(forLine: Array(line.utf8), source: .gpsd)
    }

    func usedFix(_ line: String) -> LocationFix? {
        if case .fix(let fix)? = event(line) { fix } else { nil }
    }

    /// Why the line was not used; nil when it was (or was not a fix and needs no reason).
    func rejection(_ line: String) -> String? {
        if case .rejected(let why)? = event(line) { why } else { nil }
    }

    @Test func readsARealTPVFromGpsd322() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/7","status":2,"mode":3,"time":"2017-07-19T08:50:00.800Z","ept":0.005,"lat":-34.906226300,"lon":138.608119700,"altHAE":25.4240,"altMSL":28.8950,"alt":28.8950,"epv":1.602,"track":31.4718,"magtrack":39.3946,"magvar":7.9,"speed":0.030,"eps":0.23,"geoidSep":-1.662,"eph":1.132}"#
        let fix = try #require(usedFix(line))
        #expect(fix.coordinate == Coordinate(latitude: -34.9062263, longitude: 138.6081197))
        #expect(fix.mode == .threeD)
        #expect(fix.receiverTime == 1_500_454_200.8)
        #expect(fix.altitude == 28.895)
        #expect(fix.horizontalAccuracy == 1.132)
        #expect(fix.speed == 0.03)
        #expect(fix.track == 31.4718)
        #expect(fix.source == .gpsd)
    }

    @Test func readsA3DFixWithoutTimeAsSomeReceiversSendIt() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/1","status":8,"mode":3,"lat":40.397666667,"lon":-3.652716667,"altHAE":747.3000,"altMSL":695.7000,"alt":695.7000,"magvar":-0.5,"geoidSep":51.600,"eph":38.000}"#
        let fix = try #require(usedFix(line))
        #expect(fix.receiverTime == nil)
        #expect(fix.altitude == 695.7)
    }

    @Test func aTwoDFixHasNoAltitude() throws {
        let line = #"{"class":"TPV","mode":2,"lat":1.5,"lon":2.5,"altMSL":100}"#
        let fix = try #require(usedFix(line))
        #expect(fix.mode == .twoD)
        #expect(fix.altitude == nil)
    }

    @Test(arguments: [
        (#"{"class":"TPV","mode":1}"#, LocationSourceEvent?.some(.noFix)),
        (#"{"class":"TPV","mode":0,"lat":1,"lon":2}"#, nil),
        (#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#, nil),
        (#" {"class" : "SKY", "satellites" : [ {"PRN":1,"used":false} ] }  "# + "\r", nil),
    ])
    func readsOtherReports(line: String, expected: LocationSourceEvent?) {
        #expect(event(line) == expected)
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
        let refused = rejection(line)
        #expect(refused != nil, "not refused: \(line)")
        let named = field.map { "field \"\($0)\":" } ?? "gpsd sent a line that is not a JSON object"
        #expect(refused?.contains(named) == true, "\(String(describing: refused))")
    }

    /// A key given twice makes the line no report, however it is spelled and wherever it is: early or late in a long
    /// object (repeats are found by comparing keys in turn up to 32 members, through a set past that), or inside a
    /// nested object.
    @Test func refusesAKeyGivenTwiceWhereverItIs() {
        let filler = (0..<40).map { #""x\#($0)":\#($0)"# }.joined(separator: ",")
        let long = #"{"class":"TPV","mode":3,"lat":46.5,"lon":7.5,"# + filler
        #expect(usedFix(long + "}")?.coordinate == Coordinate(latitude: 46.5, longitude: 7.5))
        for line in [
            long + #","lat":1}"#,  // the repeat past the 32nd member
            long + #","x39":1}"#,
            #"{"class":"TPV","mode":3,"l\u0061t":46.5,"lat":46.5,"lon":7.5}"#,  // the same key once escaped
            #"{"class":"SKY","satellites":[{"PRN":1,"used":true,"PRN":2}]}"#,
            #"{"class":"TPV","mode":3,"lat":46.5,"lon":7.5,"x1":1,"x1":2}"#,  // a key gpsd does not use, twice
            #"{"class":"TPV","mode":3,"lat":46.5,"lon":7.5,"x1":1,"x\u0031":2}"#,  // and once escaped
        ] {
            #expect(rejection(line)?.contains("not a JSON object") == true, "accepted: \(line)")
        }
        // Keys that only look alike are different keys.
        #expect(usedFix(#"{"class":"TPV","mode":3,"lat":46.5,"Lat":1,"lat ":2,"lon":7.5}"#) != nil)
    }

    /// The names of the members of gpsd's TPV and SKY reports (gpsd_json(5), protocol 3.x), and names that only look
    /// like them.
    static let gpsdNames = [
        "class", "device", "mode", "time", "ept", "lat", "lon", "altHAE", "altMSL", "alt", "epx", "epy", "epv", "track",
        "magtrack", "magvar", "speed", "climb", "eps", "epc", "geoidSep", "eph", "sep", "status", "leapseconds", "ecefx",
        "ecefy", "ecefz", "ecefpAcc", "ecefvx", "ecefvy", "ecefvz", "ecefvAcc", "velN", "velE", "velD", "epd", "dgpsAge",
        "dgpsSta", "satellites", "PRN", "el", "az", "ss", "used", "gnssid", "svid", "sigid", "freqid", "health", "xdop",
        "ydop", "vdop", "tdop", "hdop", "gdop", "pdop", "nSat", "uSat",
    ]
    static let lookalikeNames = ["", "c", "clas", "classs", "Class", "la", "lat ", "leapsecondsX", "leapsecondsXXXXXX",
                                 "ecefvAccc", "satellite", "uSatuSatuSatuSat", "uSatuSatuSatuSatu", "é"]

    /// Values for the members this program reads; any other is given 1.
    static let values: [String: String] = ["class": #""TPV""#, "mode": "3", "time": #""2017-07-19T08:50:00.800Z""#,
                                           "lat": "-34.9062263", "lon": "138.6081197", "altMSL": "28.895", "alt": "30",
                                           "eph": "1.132", "speed": "0.03", "track": "31.4718"]

    /// A name is the same key however it is written, so a repeat is refused whether it is written the same way twice
    /// or once with an escape; and every name is a key of its own, so a report with all of them once is read.
    @Test(arguments: gpsdNames + lookalikeNames)
    func aNameIsOneKeyHoweverItIsWritten(name: String) {
        let head = #"{"class":"TPV","mode":3,"lat":46.5,"lon":7.5"#
        let escaped = name.unicodeScalars.first.map { first in
            let hex = String(first.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex + String(name.unicodeScalars.dropFirst())
        }
        for second in [name] + (escaped.map { [$0] } ?? []) {
            let line = head + ",\"\(name)\":1,\"\(second)\":2}"
            #expect(rejection(line)?.contains("not a JSON object") == true, "accepted: \(line)")
        }
        if !["class", "mode", "lat", "lon"].contains(name) {
            #expect(usedFix(head + ",\"\(name)\":\(Self.values[name] ?? "1")}") != nil)
        }
    }

    @Test func aReportWithEveryNameGpsdUsesIsRead() throws {
        let members = (Self.gpsdNames + Self.lookalikeNames).map { "\"\($0)\":\(Self.values[$0] ?? "1")" }
        let fix = try #require(usedFix("{" + members.joined(separator: ",") + "}"))
        #expect(fix.coordinate == Coordinate(latitude: -34.9062263, longitude: 138.6081197))
        #expect(fix.receiverTime == 1_500_454_200.8)
        #expect(fix.altitude == 28.895)
        #expect(fix.horizontalAccuracy == 1.132)
        #expect(fix.speed == 0.03)
        #expect(fix.track == 31.4718)
    }

    @Test func refusesNestingDeeperThanAnyReport() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(rejection(#"{"class":"TPV","x":"# + deep + "}")?.contains("not a JSON object") == true)
        let fine = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(event(#"{"class":"SKY","x":"# + fine + "}") == nil)
    }

    @Test func readsEscapedStrings() throws {
        #expect(event(#"{"class":"\u0054PV","mode":1}"#) == .noFix)
        #expect(event(#"{"class":"\ud83d\ude00\n\"\\\/"}"#) == nil)
        #expect(rejection(#"{"class":"TPV"# + "\u{1}" + #""}"#) != nil)
        #expect(rejection(#"{"class":"\ud83d"}"#) != nil)
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
    func readsISO8601Times(text: String, seconds: Int64, nanoseconds: Int32) throws {
        let fix = try #require(usedFix(FakeGPSD.tpv(1, 2, time: text)))
        let expected = Double(seconds) + Double(nanoseconds) / 1e9
        #expect(abs((fix.receiverTime ?? .nan) - expected) <= abs(expected) * 1e-15 + 1e-9, "\(String(describing: fix.receiverTime))")
    }

    @Test(arguments: ["", "Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z",
                      "2024-01-01T00:60:00Z", "2024-01-01T00:00:61Z", "-024-01-01T00:00:00Z", "2024-01-01T00:00:00"])
    func refusesTimesThatAreNotTimes(text: String) {
        #expect(rejection(FakeGPSD.tpv(1, 2, time: text))?.contains("field \"time\":") == true)
    }
}
