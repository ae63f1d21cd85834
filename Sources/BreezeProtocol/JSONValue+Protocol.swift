public import BreezeCore

extension JSONValue {
    /// Reads one protocol line's JSON (`JSONReader`: a key given twice takes its last value). Throws
    /// `ProtocolError` (`malformed-json`) saying where it went wrong.
    public static func parse(_ text: String) throws(ProtocolError) -> JSONValue {
        do throws(JSONSyntaxError) {
            return try JSONReader.value(of: text.utf8)
        } catch {
            throw ProtocolError(.malformedJSON, error.description)
        }
    }
}
