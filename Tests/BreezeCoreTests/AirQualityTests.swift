import BreezeCore
import Testing

@Suite struct AirQualityTests {
    @Test(arguments: [
        (0.0, AQICategory.good), (50, .good), (50.4, .good), (50.5, .moderate), (51, .moderate), (100, .moderate),
        (101, .unhealthyForSensitiveGroups), (150, .unhealthyForSensitiveGroups), (151, .unhealthy),
        (200, .unhealthy), (201, .veryUnhealthy), (300, .veryUnhealthy), (301, .hazardous), (999, .hazardous),
    ])
    func epaBands(value: Double, category: AQICategory) {
        #expect(AQICategory(usAQI: value) == category)
        #expect(category.range.contains(Int(value.rounded())))
    }

    @Test(arguments: [
        (0.0, AirQualityLabel.excellent), (25, .excellent), (26, .good), (50, .good), (51, .moderate),
        (75, .moderate), (76, .slightlyHigh), (100, .slightlyHigh), (101, .unhealthyForSensitiveGroups),
        (151, .unhealthy), (201, .veryUnhealthy), (301, .hazardous),
    ])
    func breezeLabels(value: Double, label: AirQualityLabel) {
        #expect(AirQualityLabel(usAQI: value) == label)
        #expect(label.category == AQICategory(usAQI: value))
    }

    @Test(arguments: [-1.0, .nan, -.infinity, .infinity])
    func notAnIndexHasNoCategory(value: Double) {
        #expect(AQICategory(usAQI: value) == nil)
        #expect(AirQualityLabel(usAQI: value) == nil)
    }

    @Test func everyLabelSaysSomethingAndHasTips() {
        for label in AirQualityLabel.allCases {
            #expect(!label.title.isEmpty && !label.emoji.isEmpty && !label.summary.isEmpty)
            #expect(!label.healthTips.isEmpty)
            #expect(label.colorHex.hasPrefix("#") && label.colorHex.count == 7)
        }
    }

    /// The advice leads with the EPA's statement for the label's band.
    @Test(arguments: [
        (AirQualityLabel.excellent, "It's a great day to be active outside."),
        (.good, "It's a great day to be active outside."),
        (.moderate, "Unusually sensitive people should consider reducing prolonged or heavy exertion outdoors."),
        (.slightlyHigh, "Unusually sensitive people should consider reducing prolonged or heavy exertion outdoors."),
        (.unhealthyForSensitiveGroups,
         "People with heart or lung disease, older adults, children, teenagers and people active outdoors should "
            + "reduce prolonged or heavy exertion outdoors."),
        (.unhealthy,
         "Sensitive groups should avoid prolonged or heavy exertion outdoors; everyone else should reduce it."),
        (.veryUnhealthy,
         "Sensitive groups should avoid all physical activity outdoors; everyone else should avoid prolonged or heavy "
            + "exertion."),
        (.hazardous, "Everyone should avoid all physical activity outdoors."),
    ])
    func eachLabelLeadsWithItsBandsAdvice(label: AirQualityLabel, first: String) {
        #expect(label.healthTips.first == first)
        #expect(label.healthTips.allSatisfy { $0.hasSuffix(".") && !$0.contains("\n") })
    }

    @Test(arguments: [
        (Pollutant.pm25, 9.0, PollutantStatus.good), (.pm25, 9.1, .moderate), (.pm25, 35.5, .unhealthy),
        (.pm10, 54, .good), (.pm10, 154, .moderate), (.pm10, 155, .unhealthy),
        (.nitrogenDioxide, 40, .good), (.nitrogenDioxide, 150, .moderate), (.nitrogenDioxide, 200, .unhealthy),
        (.sulphurDioxide, 5, .good), (.sulphurDioxide, 100, .moderate), (.sulphurDioxide, 250, .unhealthy),
        (.ozone, 60, .good), (.ozone, 120, .moderate), (.ozone, 180, .unhealthy),
        (.carbonMonoxide, 200, .good), (.carbonMonoxide, 6_000, .moderate), (.carbonMonoxide, 12_000, .unhealthy),
    ])
    func pollutantStatusFollowsItsLimits(pollutant: Pollutant, value: Double, status: PollutantStatus) {
        #expect(PollutantReading(pollutant: pollutant, value: value).status == status)
    }

    @Test func aMissingReadingHasNoStatus() {
        #expect(PollutantReading(pollutant: .ozone, value: nil).status == nil)
        #expect(PollutantReading(pollutant: .ozone, value: -3).status == nil)
        #expect(PollutantReading(pollutant: .ozone, value: .nan).status == nil)
    }

    @Test func pollutantKeysAreOpenMeteoVariableNames() {
        #expect(Pollutant.allCases.map(\.rawValue) == [
            "pm2_5", "pm10", "nitrogen_dioxide", "sulphur_dioxide", "ozone", "carbon_monoxide",
        ])
    }
}
