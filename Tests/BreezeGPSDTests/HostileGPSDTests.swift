import BreezeCore
import BreezeGPSD
import BreezeLocation
import BreezeTestSupport
import Foundation
import Testing

/// The gpsd source against a gpsd that sends what a real one never would: each bad report is ignored, and the good
/// ones around it still come through.
@Suite struct HostileGPSDTests {
    static let adelboden = (46.4929, 7.5607)
    static let frutigen = (46.5877, 7.648)

    /// Starts a source on a fake gpsd, sends `lines` after a good fix at Adelboden, then a good fix at Frutigen that
    /// marks the end, and returns the positions of the fixes that came out.
    func fixes(after lines: [String], endTime: String = "2024-05-01T10:00:30.000Z") async throws -> [Coordinate] {
        let gpsd = try FakeGPSD()
        defer { gpsd.stop() }
        let source = GPSDSource(address: GPSDAddress(host: "127.0.0.1", port: gpsd.port))
        let recorder = EventRecorder<LocationSourceEvent>()
        let listening = Task {
            for await event in source.events() { recorder.append(event) }
        }
        defer { source.stop(); listening.cancel() }
        try #require(await gpsd.waitForClient(timeout: 10))
        gpsd.send([FakeGPSD.tpv(Self.adelboden.0, Self.adelboden.1, time: "2024-05-01T10:00:00.000Z")])
        gpsd.send(lines)
        gpsd.send([FakeGPSD.tpv(Self.frutigen.0, Self.frutigen.1, time: endTime)])
        let ended = await recorder.wait(timeout: 10) { events in
            events.contains { if case .fix(let fix) = $0 { fix.coordinate.latitude == Self.frutigen.0 } else { false } }
        }
        #expect(ended, "events: \(recorder.all)")
        return recorder.all.compactMap { if case .fix(let fix) = $0 { fix.coordinate } else { nil } }
    }

    static let expected = [
        Coordinate(latitude: adelboden.0, longitude: adelboden.1),
        Coordinate(latitude: frutigen.0, longitude: frutigen.1),
    ]

    @Test(arguments: [
        // Not JSON: libgps reads the hexadecimal as 0 and the number with letters as -33.86 (Sydney).
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:01.000Z","lat":0x2E,"lon":7.5607}"#,
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:02.000Z","lat":-33.86abc,"lon":151.2099}"#,
        // Modes gpsd never sends.
        #"{"class":"TPV","mode":99,"time":"2024-05-01T10:00:03.000Z","lat":-33.86,"lon":151.2099}"#,
        #"{"class":"TPV","mode":2.5,"time":"2024-05-01T10:00:03.000Z","lat":-33.86,"lon":151.2099}"#,
        #"{"class":"TPV","mode":"3","time":"2024-05-01T10:00:03.000Z","lat":-33.86,"lon":151.2099}"#,
        // Values out of range or of the wrong type.
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:04.000Z","lat":-33.86,"lon":151.2099,"eph":-5}"#,
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:04.000Z","lat":-33.86,"lon":151.2099,"speed":-1}"#,
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:04.000Z","lat":-33.86,"lon":151.2099,"track":400}"#,
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:04.000Z","lat":"-33.86","lon":151.2099}"#,
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:04.000Z","lat":-33.86,"lon":1e999}"#,
        #"{"class":"TPV","mode":3,"time":"2024-02-30T10:00:05.000Z","lat":-33.86,"lon":151.2099}"#,
        #"{"class":"TPV","mode":3,"time":"soon","lat":-33.86,"lon":151.2099}"#,
        #"{"class":"TPV","mode":3,"time":1714557605,"lat":-33.86,"lon":151.2099}"#,
        // Two values for one field: which one a reader takes is anyone's guess.
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:06.000Z","lat":46.49,"lat":-33.86,"lon":151.2099}"#,
        // A time minutes or years back.
        FakeGPSD.tpv(-33.86, 151.2099, time: "2024-05-01T09:55:00.000Z"),
        FakeGPSD.tpv(-33.86, 151.2099, time: "2004-05-01T10:00:10.000Z"),
    ])
    func aBadReportIsNotAFix(line: String) async throws {
        #expect(try await fixes(after: [line]) == Self.expected)
    }

    @Test func aTimeThatWentBackIsIgnoredUntilItPassesTheLastUsedTime() async throws {
        let back = (0..<5).map { FakeGPSD.tpv(-33.86, 151.2099, time: "2024-05-01T09:00:0\($0).000Z") }
        let resumed = FakeGPSD.tpv(51.5072, -0.1276, time: "2024-05-01T10:00:10.000Z")
        let fixes = try await fixes(after: back + [resumed])
        #expect(fixes == [Self.expected[0], Coordinate(latitude: 51.5072, longitude: -0.1276), Self.expected[1]])
    }

    @Test func reportsOfOneEpochOutOfOrderAreOneFix() async throws {
        let late = FakeGPSD.tpv(46.4930, 7.5607, time: "2024-05-01T09:59:59.800Z")
        #expect(try await fixes(after: [late]) == Self.expected)
    }

    @Test func aReceiverWithoutTimeStillGivesFixes() async throws {
        let untimed = [FakeGPSD.tpv(51.5072, -0.1276, time: nil), FakeGPSD.tpv(51.5072, -0.1276, time: nil)]
        let fixes = try await fixes(after: untimed)
        #expect(fixes == [Self.expected[0], Coordinate(latitude: 51.5072, longitude: -0.1276), Self.expected[1]])
    }

    @Test func gpsdsOtherReportsAreNotFixes() async throws {
        let others = [
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2024-05-01T10:00:00.000Z"}]}"#,
            #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#,
            #"{"class":"SKY","device":"/dev/ttyACM0","hdop":0.71,"satellites":[{"PRN":1,"el":2.0,"az":83.0,"ss":0.0,"used":false}]}"#,
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":0,"lat":-33.86,"lon":151.2099}"#,
        ]
        #expect(try await fixes(after: others) == Self.expected)
    }
}
