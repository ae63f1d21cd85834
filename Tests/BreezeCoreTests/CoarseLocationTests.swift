import BreezeCore
import Testing

@Suite struct CoarseLocationTests {
    private func fix(accuracy: Double?, time: Double) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: 46.498319544, longitude: 7.561234567), mode: .threeD,
            horizontalAccuracy: accuracy, receivedAt: .now, receivedWallTime: time, source: .gpsd)
    }

    @Test func everyDerivedFieldIsAsCoarseAsTheCoordinates() {
        let coarse = CoarseLocation(fix: fix(accuracy: 4.2, time: 1_700_000_123.456), distance: 1_234.5)
        #expect(coarse.coordinate == Coordinate(latitude: 46.5, longitude: 7.56))
        #expect(coarse.distance == 1_000)
        #expect(coarse.accuracy == 2_000)
        #expect(coarse.time == 1_700_000_100)
    }

    @Test func aPoorFixStaysPoorAndNothingIsReportedFinerThanAStep() {
        let coarse = CoarseLocation(fix: fix(accuracy: 2_600, time: 59.9), distance: 499)
        #expect(coarse.accuracy == 4_000)
        #expect(coarse.distance == 0)
        #expect(coarse.time == 0)
        #expect(CoarseLocation(fix: fix(accuracy: nil, time: 0), distance: 0).accuracy == 1_000)
    }

    @Test func theExactViewKeepsTheFix() {
        let exact = CoarseLocation.exact(fix: fix(accuracy: 4.2, time: 1_700_000_123.456), distance: 1_234.5)
        #expect(exact.coordinate.latitude == 46.498319544)
        #expect(exact.accuracy == 4.2)
        #expect(exact.time == 1_700_000_123.456)
        #expect(exact.distance == 1_234.5)
    }
}
