import BreezeCore
import Testing

@Suite struct TemperatureTests {
    @Test(arguments: [
        (21.34, TemperatureUnit.celsius, "21.3°C"), (21.35, .celsius, "21.4°C"), (-0.04, .celsius, "0.0°C"),
        (-5.25, .celsius, "-5.3°C"), (0, .fahrenheit, "32.0°F"), (100, .fahrenheit, "212.0°F"),
        (-40, .fahrenheit, "-40.0°F"), (21.3, .fahrenheit, "70.3°F"),
    ])
    func formatsWithOneDecimal(celsius: Double, unit: TemperatureUnit, text: String) {
        #expect(Temperature(celsius: celsius).formatted(unit) == text)
    }

    @Test func changesAreSignedAndScaledWithoutTheOffset() {
        let then = Temperature(celsius: 20)
        #expect(Temperature(celsius: 22).formattedChange(since: then, in: .fahrenheit) == "+3.6°F")
        #expect(Temperature(celsius: 18.8).formattedChange(since: then, in: .celsius) == "-1.2°C")
        #expect(Temperature(celsius: 20).formattedChange(since: then, in: .celsius) == "+0.0°C")
    }

    @Test func convertsBothWays() {
        #expect(abs(Temperature(fahrenheit: 98.6).celsius - 37) < 1e-9)
        #expect(abs(Temperature(celsius: 37).fahrenheit - 98.6) < 1e-9)
    }

    @Test(arguments: [
        ("en_US.UTF-8", TemperatureUnit.fahrenheit), ("en_US", .fahrenheit), ("en_GB.UTF-8", .celsius),
        ("de_CH.UTF-8", .celsius), ("C", .celsius), ("C.UTF-8", .celsius),
    ])
    func unitFollowsTheLocale(locale: String, unit: TemperatureUnit) {
        #expect(TemperatureUnit.preferred(forLocale: locale) == unit)
    }

    @Test func noLocaleMeansCelsius() {
        #expect(TemperatureUnit.preferred(forLocale: nil) == .celsius)
    }
}
