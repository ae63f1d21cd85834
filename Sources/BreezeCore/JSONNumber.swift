/// JSON number text (RFC 8259) made into a Double without strtod where integers make it exactly: the reader that
/// the socket protocol's parser and gpsd's report parser share.
public enum JSONNumber {
    /// The largest integer below which every integer is exact as a Double.
    private static let exactIntegerLimit: UInt64 = 1 << 53

    /// The powers of ten that are exact as Doubles: 10⁰ to 10²².
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// The Double that `text` names, when its digits, read without the point, make an integer of at most 2⁵³ and its
    /// power of ten is 22 at most either way. Both are then exact as Doubles, and one IEEE multiplication or division
    /// rounds the result correctly, as strtod would (Clinger's fast path). nil for anything else (more digits, a
    /// larger exponent), which the caller reads with strtod.
    ///
    /// `text` must already be in JSON's number grammar: an optional minus, digits, an optional fraction and an
    /// optional exponent.
    public static func exactValue(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = text.startIndex
        let negative = index < text.endIndex && text[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var mantissa: UInt64 = 0
        var digitCount = 0
        var fractionDigits = 0
        var inFraction = false
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                // Nineteen digits always fit a UInt64; a longer text is left to strtod.
                digitCount += 1
                guard digitCount <= 19 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                if inFraction { fractionDigits += 1 }
            }
            index += 1
        }
        guard mantissa <= exactIntegerLimit else { return nil }
        var exponent = 0
        if index < text.endIndex {
            // An exponent: 'e' or 'E', a sign, then digits; more than three are left to strtod.
            index += 1
            var exponentNegative = false
            if index < text.endIndex, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            guard text.endIndex - index <= 3 else { return nil }
            while index < text.endIndex {
                exponent = exponent * 10 + Int(text[index] &- UInt8(ascii: "0"))
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        let power = exponent - fractionDigits
        var value = Double(mantissa)
        switch power {
        case 0: break
        case 1...22: value *= exactPowersOfTen[power]
        case -22 ... -1: value /= exactPowersOfTen[-power]
        default: return nil
        }
        return negative ? -value : value
    }
}
