import BreezeCore
import Testing

@Suite struct CoordinateTests {
    @Test func parisToLondonIsAbout344Kilometres() {
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(paris.distance(to: london) - 343_560) < 1_000)
        #expect(paris.distance(to: paris) == 0)
    }

    @Test func distanceAcrossTheAntimeridianIsShort() {
        let west = Coordinate(latitude: 0, longitude: 179.9)
        let east = Coordinate(latitude: 0, longitude: -179.9)
        #expect(abs(west.distance(to: east) - 22_239) < 50)
    }

    @Test(arguments: [
        (Double.nan, 0.0), (0, .infinity), (90.0001, 0), (-90.5, 0), (0, 180.01), (0, -181),
    ])
    func rejectsPositionsNotOnTheEarth(latitude: Double, longitude: Double) {
        #expect(Coordinate(validatingLatitude: latitude, longitude: longitude) == nil)
    }

    @Test func acceptsTheCornersOfTheMap() {
        #expect(Coordinate(validatingLatitude: 90, longitude: 180) != nil)
        #expect(Coordinate(validatingLatitude: -90, longitude: -180) != nil)
    }

    @Test(arguments: [0.0, 45, 90, 180, 270])
    func destinationLiesAtTheDistanceAsked(bearing: Double) {
        let start = Coordinate(latitude: 46.4983, longitude: 7.5674)
        let end = start.destination(distance: 2_500, bearing: bearing)
        #expect(abs(start.distance(to: end) - 2_500) < 0.5)
    }

    @Test func roundsToCityLevel() {
        let rounded = Coordinate(latitude: 46.498319, longitude: -7.567402).rounded(toDecimals: 2)
        #expect(rounded == Coordinate(latitude: 46.5, longitude: -7.57))
    }
}

@Suite struct CivilDateTests {
    @Test(arguments: [
        (0, 1970, 1, 1), (-1, 1969, 12, 31), (10_957, 2000, 1, 1), (11_016, 2000, 2, 29), (20_601, 2026, 5, 28),
        (-719_468, 0, 3, 1),
    ])
    func daysSince1970(days: Int, year: Int, month: Int, day: Int) {
        #expect(CivilDate(daysSince1970: days) == CivilDate(year: year, month: month, day: day))
    }
}
