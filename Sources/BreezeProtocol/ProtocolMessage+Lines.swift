public import BreezeCore

/// The answers given most often, encoded straight to their line: each the same bytes as the `JSONValue` answer
/// made a reply to the request and encoded (`reply(place(…), id:).encodedLine()`), for a fraction of the work.
extension ProtocolMessage {
    /// `place(_:distance:)` answering the request with `id`, as a line.
    public static func placeLine(_ place: Place, distance: Double?, id: JSONValue?) -> [UInt8] {
        var writer = JSONLineWriter(capacity: 256)
        writer.raw("{")
        place.withText { writePlaceMembers($0, distance: distance, to: &writer) }
        writeID(id, to: &writer)
        writer.raw("}")
        return writer.line()
    }

    /// `places(_:extra:)` answering the request with `id`, as a line.
    public static func placesLine(_ places: [Place], extra: [(String, JSONValue)], id: JSONValue?) -> [UInt8] {
        placesLine(expectedCount: places.count, extra: extra, id: id) { write in
            for place in places { place.withText(write) }
        }
    }

    /// `placesLine(_:extra:id:)` for the places `places` lends, one by one, to the `write` it is given, in order:
    /// for places read straight from where they are kept (a search's answer, from the places index's bytes).
    /// `expectedCount` only sizes the line's first buffer.
    public static func placesLine(
        expectedCount: Int, extra: [(String, JSONValue)], id: JSONValue?,
        places: (_ write: (PlaceText) -> Void) -> Void
    ) -> [UInt8] {
        var writer = JSONLineWriter(capacity: 128 + 256 * max(0, min(expectedCount, 64)))
        writer.raw("{\"class\":")
        writer.value(extra.last { $0.0 == "class" }?.1 ?? .string("PLACES"))
        // A reply's own id replaces any the object had.
        for (key, value) in extra where key != "class" && (id == nil || key != "id") {
            writer.raw(",")
            writer.key(key)
            writer.value(value)
        }
        writer.raw(",\"places\":[")
        var first = true
        places { place in
            writer.raw(first ? "{" : ",{")
            first = false
            writePlaceMembers(place, distance: nil, to: &writer)
            writer.raw("}")
        }
        writer.raw("]")
        writeID(id, to: &writer)
        writer.raw("}")
        return writer.line()
    }

    /// The members of `place(_:distance:)`, in its order.
    private static func writePlaceMembers(_ place: PlaceText, distance: Double?, to writer: inout JSONLineWriter) {
        writer.raw("\"class\":\"PLACE\",\"name\":")
        if place.country.isEmpty {
            writer.string(utf8: place.name)
        } else {
            writer.string(utf8: place.name, ", ", place.country)
        }
        writer.raw(",\"city\":")
        writer.string(utf8: place.name)
        writer.raw(",\"admin1\":")
        if let admin1 = place.admin1 { writer.string(utf8: admin1) } else { writer.null() }
        writer.raw(",\"country\":")
        writer.string(utf8: place.country)
        writer.raw(",\"country_code\":")
        writer.string(utf8: place.countryCode)
        writer.raw(",\"geoname_id\":")
        writer.integer(place.id)
        writer.raw(",\"latitude\":")
        writer.number(place.coordinate.latitude)
        writer.raw(",\"longitude\":")
        writer.number(place.coordinate.longitude)
        writer.raw(",\"population\":")
        writer.integer(place.population)
        if let distance {
            writer.raw(",\"distance_m\":")
            writer.number(distance.rounded())
        }
    }

    private static func writeID(_ id: JSONValue?, to writer: inout JSONLineWriter) {
        guard let id else { return }
        writer.raw(",\"id\":")
        writer.value(id)
    }
}
