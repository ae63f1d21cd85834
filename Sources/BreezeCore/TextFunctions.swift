#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Numbers written as C's printf writes them (`%g`, `%.1f`, `%04X`), in the C locale: a point before the
/// decimals, whatever the environment says.
public func printfFormat(_ format: String, _ arguments: any CVarArg...) -> String {
    var capacity = 128
    while true {
        var buffer = [CChar](repeating: 0, count: capacity)
        let needed = withVaList(arguments) { list in
            buffer.withUnsafeMutableBufferPointer { Int(vsnprintf($0.baseAddress, capacity, format, list)) }
        }
        if needed < 0 { return "" }
        if needed < capacity {
            return String(decoding: buffer[..<needed].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        capacity = needed + 1
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (Unicode's space separators and U+0009; line ends stay).
    public func trimmingSpaces() -> String {
        // U+0020 is the one ASCII space separator: ASCII is told without looking up its properties.
        trimming { $0.isASCII ? $0 == " " || $0 == "\t" : $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without leading and trailing white space and line ends (Unicode's separators, U+000A to U+000D and U+0085).
    public func trimmingWhitespaceAndNewlines() -> String {
        trimming { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: true
            default: ("\u{0A}"..."\u{0D}").contains(scalar) || scalar == "\u{85}"
            }
        }
    }

    private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        // Most text has nothing to trim: it is taken as it is, without looking for where it starts and ends.
        if let first = unicodeScalars.first, let last = unicodeScalars.last, !isTrimmed(first), !isTrimmed(last) {
            return String(self)
        }
        let text = String(self)
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
            let last = scalars.lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        return String(Substring(scalars[first...last]))
    }
}

// Searching text for text, character by character, as the standard library's `contains(_:)`, `replacing(_:with:)`
// and `split(separator:)` with a string do; those come from _StringProcessing, which breezectl leaves out of its link.
extension StringProtocol {
    /// The first place `part` occurs, or nil (an empty `part` occurs at the start).
    public func firstRange(ofText part: some StringProtocol) -> Range<Index>? {
        var start = startIndex
        while true {
            var here = start
            var wanted = part.startIndex
            while wanted != part.endIndex, here != endIndex, self[here] == part[wanted] {
                formIndex(after: &here)
                part.formIndex(after: &wanted)
            }
            if wanted == part.endIndex { return start..<here }
            guard start != endIndex else { return nil }
            formIndex(after: &start)
        }
    }

    /// Whether `part` occurs in the text (an empty `part` does not, as with `contains(_:)`).
    public func containsText(_ part: some StringProtocol) -> Bool {
        !part.isEmpty && firstRange(ofText: part) != nil
    }

    /// Every occurrence of `part` (not empty), from the start and not overlapping, replaced by `replacement`.
    public func replacingText(_ part: some StringProtocol, with replacement: some StringProtocol) -> String {
        guard !part.isEmpty else { return String(self) }
        var result = ""
        var rest = self[...]
        while let found = rest.firstRange(ofText: part) {
            result += rest[..<found.lowerBound]
            result += replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }
}

extension String {
    /// Exactly `length` UTF-16 units: padded with spaces, or cut (as `NSString.padding(toLength:withPad:startingAt:)`
    /// with a space).
    public func padded(toLength length: Int) -> String {
        let units = utf16.count
        if units >= length { return String(decoding: utf16.prefix(length), as: UTF16.self) }
        return self + String(repeating: " ", count: length - units)
    }

    /// At least `length` characters: spaces before it when it is shorter (a column of numbers aligned right).
    public func leftPadded(toLength length: Int) -> String {
        String(repeating: " ", count: max(0, length - count)) + self
    }
}
