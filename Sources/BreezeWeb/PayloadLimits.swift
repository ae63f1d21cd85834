import BreezeCore

/// The bounds on what a web answer may carry beyond a report's numbers (those are `PlausibleRange`), in one place.
///
/// A value outside them is a `badPayload` naming the field: the answer is not what the API documents, so none of
/// it is trusted.
public enum PayloadLimits {
    /// `utc_offset_seconds`: the real zones span −12 h to +14 h; ±18 h is the bound ISO 8601 and java.time put on
    /// an offset, leaving room for any zone yet to come while keeping time arithmetic far from overflow.
    public static let utcOffsetSeconds = -18 * 3_600...18 * 3_600
    /// A place's id (GeoNames' `id`, Nominatim's `place_id`): positive, and exact as a JSON number (below 2^53), as
    /// it is sent to clients; Nominatim's are negated, which cannot overflow in this range.
    public static let placeID = 1...((1 << 53) - 1)
    /// A place's population: no more than the world's.
    public static let population = 0...10_000_000_000
    /// The year of "today" in a forecast answer: the climate report asks the archive for each tenth year from 1980
    /// up to it, so a far-off year would cost hundreds of requests.
    public static let forecastYear = 2_000...2_199
    /// The year of a date in an answer (Google's `{year, month, day}`): checked before any calendar arithmetic,
    /// which a year near `Int.max` overflows; times count from 1970 and dates have four digits.
    public static let dateYear = 1_970...9_999
    /// Days in one daily answer: the daemon asks for one at a time.
    public static let days = 366
    /// Results of one city search kept; the daemon asks for ten.
    public static let searchResults = 100
    /// Characters kept of a name from an answer (a place, a pollen type), so a hostile server cannot make the
    /// daemon hold and publish megabytes of name.
    public static let textLength = 200

    /// `text` cut to `textLength` characters.
    public static func capped(_ text: String) -> String {
        text.count <= textLength ? text : String(text.prefix(textLength))
    }

    /// An integer field, decoded as a JSON number (so a fraction or a huge value is this error, naming the field,
    /// rather than the decoder's), converted exactly and checked against its bound; otherwise `badPayload`.
    static func integer(_ value: Double, in range: ClosedRange<Int>, field: String) throws(WebError) -> Int {
        guard let integer = Int(exactly: value), range.contains(integer) else {
            throw WebError(
                .badPayload, "\(field): \(value) is not a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return integer
    }

    /// An answer's `utc_offset_seconds`, within `utcOffsetSeconds`; 0 when the answer leaves it out.
    static func utcOffset(_ value: Double?) throws(WebError) -> Int {
        try integer(value ?? 0, in: utcOffsetSeconds, field: "utc_offset_seconds")
    }

    /// A report whose numbers are all plausible; otherwise `badPayload` naming the field under `prefix`.
    static func checked<Report: Plausible>(_ report: Report, under prefix: String) throws(WebError) -> Report {
        do {
            try report.checkPlausible()
        } catch {
            throw WebError(.badPayload, prefix + error.description)
        }
        return report
    }
}
