import BreezeCore
import Testing

@Suite struct PollenLevelTests {
    @Test(arguments: [
        (0.0, PollenLevel.none), (1, .veryLow), (2, .low), (3, .moderate), (4, .high), (5, .veryHigh),
        (2.6, .moderate), (-1, .none), (9, .veryHigh),
    ])
    func indexMapsToLevel(index: Double, level: PollenLevel) {
        #expect(PollenLevel(index: index) == level)
    }

    @Test func titlesMatchTheUniversalPollenIndex() {
        #expect(PollenLevel.allCases.map(\.title) == ["None", "Very Low", "Low", "Moderate", "High", "Very High"])
        #expect(PollenLevel(index: .nan) == nil)
        #expect(PollenLevel.low < PollenLevel.high)
    }
}
