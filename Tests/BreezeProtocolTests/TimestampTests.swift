import BreezeCore
import BreezeProtocol
import Testing

/// Times reach the wire through `LOCATION`'s `time`; whatever Double a source hands over, the message is built.
@Suite struct TimestampTests {
    let bern = Place(
        id: 2661552, name: "Bern", admin1: "Bern", country: "Switzerland", countryCode: "CH",
        population: 121_631, coordinate: Coordinate(latitude: 46.948, longitude: 7.447))

    func time(_ seconds: Double) throws -> JSONValue? {
        let message = ProtocolMessage.location(
            place: bern, coordinate: bern.coordinate, accuracy: nil, source: "manual", receivedAt: seconds,
            distance: nil, permission: .authorized(.gpsd))
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
}
