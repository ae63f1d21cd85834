import BreezeCore
import Testing

/// What the reports derive from their numbers is total: any Double, however it got there, gives an answer.
@Suite struct ReportTotalityTests {
    static let extremes: [Double] = [
        .nan, .infinity, -.infinity, 1e19, -1e19, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNonzeroMagnitude, -0.0, 9.3e17, -9.3e17,
    ]

    @Test(arguments: extremes)
    func theAirQualityLabelAndCategoryTakeAnyDouble(value: Double) {
        let label = AirQualityLabel(usAQI: value)
        #expect((label == nil) == !(value.isFinite && value >= 0))
        #expect(AQICategory(usAQI: value) == label?.category)
    }

    @Test(arguments: extremes)
    func aPollutantsStatusTakesAnyDouble(value: Double) {
        for pollutant in Pollutant.allCases {
            let status = PollutantReading(pollutant: pollutant, value: value).status
            #expect((status == nil) == !(value.isFinite && value >= 0))
        }
    }

    @Test(arguments: extremes)
    func aPollenLevelTakesAnyDouble(value: Double) {
        #expect((PollenLevel(index: value) == nil) == !value.isFinite)
    }

    @Test(arguments: extremes)
    func aTemperatureFormatsAnyDouble(value: Double) {
        let temperature = Temperature(celsius: value)
        for unit in TemperatureUnit.allCases {
            #expect(!temperature.formatted(unit).isEmpty)
            #expect(!temperature.formattedChange(since: Temperature(celsius: 0), in: unit).isEmpty)
        }
    }
}
