public import BreezeCore

/// The answers given most often, encoded straight to their line: each the same bytes as the `JSONValue` answer
/// made a reply to the request and encoded (`reply(place(…), id:).encodedLine()`), for a fraction of the work.
extension ProtocolMessage {
    /// `place(_:distance:)` answering the request with `id`, as a line.
    public static func placeLine(_ place: Place, distance: Double?, id: JSONValue?) -> [UInt8] {
        var writer = JSONLineWriter(capacity: 256)
        writer.beginObject()
        writePlaceMembers(place, distance: distance, to: &writer)
        writeID(id, to: &writer)
        writer.endObject()
        return writer.line()
    }

    /// `places(_:extra:)` answering the request with `id`, as a line.
    public static func placesLine(_ places: [Place], extra: [(String, JSONValue)], id: JSONValue?) -> [UInt8] {
        var writer = JSONLineWriter(capacity: 128 + 224 * places.count)
        writer.beginObject()
        writer.key("class")
        writer.value(extra.last { $0.0 == "class" }?.1 ?? .string("PLACES"))
        // A reply's own id replaces any the object had.
        for (key, value) in extra where key != "class" && (id == nil || key != "id") {
            writer.key(key)
            writer.value(value)
        }
        writer.key("places")
        writer.beginArray()
        for place in places {
            writer.beginObject()
            writePlaceMembers(place, distance: nil, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        writeID(id, to: &writer)
        writer.endObject()
        return writer.line()
    }

    /// The members of `place(_:distance:)`, in its order.
    private static func writePlaceMembers(_ place: Place, distance: Double?, to writer: inout JSONLineWriter) {
        writer.key("class")
        writer.string("PLACE")
        writer.key("name")
        if place.country.isEmpty { writer.string(place.name) } else { writer.string(place.name, ", ", place.country) }
        writer.key("city")
        writer.string(place.name)
        writer.key("admin1")
        if let admin1 = place.admin1 { writer.string(admin1) } else { writer.null() }
        writer.key("country")
        writer.string(place.country)
        writer.key("country_code")
        writer.string(place.countryCode)
        writer.key("geoname_id")
        writer.number(Double(place.id))
        writer.key("latitude")
        writer.number(place.coordinate.latitude)
        writer.key("longitude")
        writer.number(place.coordinate.longitude)
        writer.key("population")
        writer.number(Double(place.population))
        if let distance {
            writer.key("distance_m")
            writer.number(distance.rounded())
        }
    }

    private static func writeID(_ id: JSONValue?, to writer: inout JSONLineWriter) {
        guard let id else { return }
        writer.key("id")
        writer.value(id)
    }
}
