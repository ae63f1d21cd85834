import BreezeCore
import Testing

@Suite struct JSONStringTests {
    @Test(arguments: [
        ("Bern", #""Bern""#),
        ("Zürich", #""Zürich""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\temp"#, #""C:\\temp""#),
        ("a\nb\rc\td", #""a\nb\rc\td""#),
        ("\u{1}\u{1f}", #""\u0001\u001f""#),
        ("line\u{2028}para\u{2029}", #""line\u2028para\u2029""#),
        ("→ arrow", #""→ arrow""#),
        ("", #""""#),
    ])
    func quotesAsRFC8259Asks(text: String, literal: String) {
        #expect(JSONString.quoted(text) == literal)
    }

    @Test func appendsAfterWhatIsThere() {
        var out = "{"
        JSONString.append("key", to: &out)
        out += ":"
        JSONString.append("va\"lue", to: &out)
        #expect(out == #"{"key":"va\"lue""#)
    }
}
