import BreezeCore
import Testing

/// Text found and replaced in text, as the standard library's string algorithms do it.
@Suite struct TextSearchTests {
    @Test(arguments: [
        ("en_us.utf-8", "utf-8", true), ("c.utf8", "utf-8", false), ("utf", "utf-8", false), ("", "a", false),
        ("abc", "", false), ("aab", "ab", true), ("e\u{301}x", "e", false), ("a b", "a b", true), ("ab", "b", true),
    ])
    func textIsFoundAsTheStandardLibraryFindsIt(text: String, part: String, found: Bool) {
        #expect(text.containsText(part) == found)
        #expect(text.containsText(part) == text.contains(part))
    }

    @Test func theFirstRangeIsTheFirstOccurrence() throws {
        let text = "--units <c|f>    Temperature  unit"
        let range = try #require(text.firstRange(ofText: "  "))
        #expect(text[..<range.lowerBound] == "--units <c|f>")
        #expect(text[range.upperBound...] == "  Temperature  unit")
        #expect(text.firstRange(ofText: "   x") == nil)
        #expect(text.firstRange(ofText: "") == text.startIndex..<text.startIndex)
    }

    @Test(arguments: [
        ("a  b   c    d", "  ", " "), ("it's", "'", #"'\''"#), ("a:b:c", ":", "\\:"), ("", "x", "y"),
        ("xxx", "xx", "y"), ("no match", "z", "y"), ("[a]\\", "\\", "\\\\"),
    ])
    func everyOccurrenceIsReplacedFromTheStartWithoutOverlapping(text: String, part: String, replacement: String) {
        #expect(text.replacingText(part, with: replacement) == text.replacing(part, with: replacement))
    }

    @Test func anEmptyPartReplacesNothing() {
        #expect("abc".replacingText("", with: "x") == "abc")
    }
}
