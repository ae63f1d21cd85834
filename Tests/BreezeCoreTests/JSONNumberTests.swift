import BreezeCore
import Testing

@Suite struct JSONNumberTests {
    /// What the fast path makes is bit for bit what strtod makes of the same text, for random numbers of every
    /// shape JSON allows: signs, leading-zero fractions, trailing zeros, exponents of either sign and case.
    @Test func whatItMakesIsWhatStrtodMakes() throws {
        var random = SystemRandomNumberGenerator()
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        }
        var texts = ["0", "-0", "0.0", "-0.0", "0e5", "-0E-5", "9007199254740992", "9007199254740993",
                     "-9007199254740993", "900719925474099.3", "1e22", "1e23", "1.5e-22", "1.5e-23", "123456789e-30",
                     "1234567890123456789", "12345678901234567890", "4.9e-324", "1.7976931348623157e308"]
        for _ in 0..<100_000 {
            var text = Bool.random(using: &random) ? "-" : ""
            let integerDigits = Int.random(in: 0...12, using: &random)
            text += integerDigits == 0 ? "0" : String(Int.random(in: 1...9, using: &random)) + digits(integerDigits - 1)
            if Bool.random(using: &random) { text += "." + digits(Int.random(in: 1...12, using: &random)) }
            if Int.random(in: 0..<4, using: &random) == 0 {
                text += ["e", "E", "e+", "E-", "e-"].randomElement(using: &random)!
                text += digits(Int.random(in: 1...3, using: &random))
            }
            texts.append(text)
        }
        var fast = 0
        for text in texts {
            let expected = try #require(Double(text))
            let value = Array(text.utf8).withUnsafeBufferPointer { JSONNumber.exactValue($0) }
            guard let value else { continue }
            fast += 1
            #expect(value.bitPattern == expected.bitPattern, "\(text): \(value) against strtod's \(expected)")
        }
        // Most of them are short enough for the fast path; the rest were left to strtod, as they must be.
        #expect(fast > texts.count / 2)
    }

    /// gpsd's and the protocol's numbers as they come take the fast path; what it cannot make exactly does not.
    @Test func takesWhatItCanMakeExactlyAndLeavesTheRest() {
        func value(_ text: String) -> Double? { Array(text.utf8).withUnsafeBufferPointer { JSONNumber.exactValue($0) } }
        #expect(value("46.498733333") == 46.498733333)
        #expect(value("545.4000") == 545.4)
        #expect(value("0.005") == 0.005)
        #expect(value("-33.8688") == -33.8688)
        #expect(value("42") == 42)
        #expect(value("-0")?.sign == .minus)
        #expect(value("2.5e3") == 2500)
        for beyond in ["9007199254740993", "12345678901234567890", "1e23", "1e-23", "1e1000", "0.1e-22"] {
            #expect(value(beyond) == nil, "\(beyond)")
        }
    }
}
