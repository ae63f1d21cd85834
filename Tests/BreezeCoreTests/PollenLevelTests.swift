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

    /// Advice for hay fever: none below Low, then more of the NHS's steps as the level rises.
    @Test(arguments: [
        (PollenLevel.none, "No pollen to speak of.", 1), (.veryLow, "Very little pollen in the air.", 1),
        (.low, "With hay fever, shower and change your clothes after you have been outside.", 1),
        (.moderate, "With hay fever, keep windows and doors shut as much as possible.", 2),
        (.high, "With hay fever, stay indoors when you can and keep windows and doors shut.", 4),
        (.veryHigh, "With hay fever, stay indoors whenever possible and keep windows and doors shut.", 4),
    ])
    func eachLevelHasItsAdvice(level: PollenLevel, first: String, count: Int) {
        #expect(level.healthTips.first == first)
        #expect(level.healthTips.count == count)
        #expect(level.healthTips.allSatisfy { $0.hasSuffix(".") && !$0.contains("\n") })
    }

    @Test func titlesMatchTheUniversalPollenIndex() {
        #expect(PollenLevel.allCases.map(\.title) == ["None", "Very Low", "Low", "Moderate", "High", "Very High"])
        #expect(PollenLevel(index: .nan) == nil)
        #expect(PollenLevel.low < PollenLevel.high)
    }
}
