import BreezeCore
import BreezeProtocol
import FoundationEssentials
import Testing

/// Times reach the wire through `LOCATION`'s `time`; whatever Double a source hands over, the message is built.
@Suite struct TimestampTests {
    let bern = Place(
        id: 2661552, name: "Bern", admin1: "Bern", country: "Switzerland", countryCode: "CH",
        population: 121_631, coordinate: Coordinate(latitude: 46.948, longitude: 7.447))

    func time(_ seconds: Double) throws -> JSONValue? {
        let fix = LocationFix(
            coordinate: bern.coordinate, mode: .twoD, receivedAt: .now, receivedWallTime: seconds, source: .gpsd)
        let message = ProtocolMessage.location(
            place: bern, coordinate: bern.coordinate, fix: .exact(fix: fix, distance: 0), source: "gpsd",
            standIn: nil, permission: .authorized(.gpsd), precise: true)
        return try JSONValue.parse(message.encoded())["time"]
    }

    @Test(arguments: [
        -4_611_686_018_427_387_904, 1e300, -1e300, .nan, .infinity, -.infinity, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, 9.3e18, -62_167_219_200.001, 253_402_300_800,
    ] as [Double])
    func aTimeOutsideYearsZeroToNineThousandNineHundredNinetyNineIsNull(seconds: Double) throws {
        #expect(try time(seconds) == .null)
    }

    @Test(arguments: [
        (-62_167_219_200, "0000-01-01T00:00:00.000Z"), (253_402_300_799.5, "9999-12-31T23:59:59.500Z"),
        (0, "1970-01-01T00:00:00.000Z"), (-0.001, "1969-12-31T23:59:59.999Z"),
        (1_780_000_000.25, "2026-05-28T20:26:40.250Z"),
    ] as [(Double, String)])
    func aTimeInsideTheRangeIsWritten(seconds: Double, text: String) throws {
        #expect(try time(seconds) == .string(text))
    }

    @Test(arguments: [
        -62_167_219_200, 253_402_300_799.5, 0, -0.001, 1_780_000_000.25, 1_796_191_526.123, 951_782_400.999,
    ] as [Double])
    func aWrittenTimeReadsBackToTheMillisecond(seconds: Double) throws {
        let text = try #require(try time(seconds)?.stringValue)
        let read = try #require(Timestamp.seconds(iso8601: text))
        #expect(abs(read - (seconds * 1000).rounded(.down) / 1000) < 1e-6)
    }

    /// The times breezectl reads (a dataset's `fetched`, a node's fix `time`) as Foundation's ISO 8601 parser read
    /// them.
    @Test(arguments: [
        "2026-12-02T06:05:26.123Z", "2026-12-02T06:05:26Z", "2026-12-02T06:05:26.1Z", "2026-12-02T06:05:26.123456789Z",
        "2026-12-02T06:05:26.123+02:00", "2026-12-02T06:05:26.123-0530", "2024-02-29T23:59:59.999Z",
        "1969-12-31T23:59:59.999Z", "2026-12-31T23:59:60.000Z", "9999-12-31T23:59:59.999Z",
    ])
    func aTimeIsReadAsFoundationReadsIt(text: String) throws {
        // Foundation 6.0 reads a time without a fraction only with a style that expects none; 6.3 with either.
        let foundation = try
            (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: false))
        let read = try #require(Timestamp.seconds(iso8601: text))
        #expect(abs(read - foundation.timeIntervalSince1970) < 1e-6)
    }

    @Test(arguments: [
        "", "2026-12-02", "2026-12-02 06:05:26.123Z", "2026-12-02T06:05:26.123", "2026-12-02T06:05:26.Z",
        "2026-12-02T06:05:26,123Z", "2026-13-02T06:05:26Z", "2026-02-30T06:05:26Z", "2026-12-02T24:00:00Z",
        "2026-12-02T06:05:26.123Zjunk", "2026-12-02T06:05:26+2", "2026-12-02T06:05:26+02:0x", "-026-12-02T06:05:26Z",
        "2026-12-02t06:05:26z",
    ])
    func anythingElseIsNotATime(text: String) {
        #expect(Timestamp.seconds(iso8601: text) == nil)
    }
}
