public import BreezeCore

/// Builds the objects the daemon sends: each a JSON object with a `class` (the gpsd convention), one per line.
public enum ProtocolMessage {
    /// The protocol's version: the major changes when a client written for the old one could misread the new one,
    /// the minor when fields or classes are added (1: `tips` in `AIR` and `POLLEN`; 2: `geoname_id` in `LOCATION`,
    /// the `id` in every `ERROR` answering a request that had one, `wait` for `refresh`; 3: `mqtt` in the `VERSION`
    /// answering `version`, `online` for `search`).
    public static let protocolMajor = 1
    public static let protocolMinor = 12

    /// Sent on connect, and answering `version` with `extra` after the fixed members (`mqtt`: the broker link's
    /// state, when breezed publishes to one).
    public static func version(release: String, extra: [(String, JSONValue)] = []) -> JSONValue {
        .object(
            [
                ("class", .string("VERSION")), ("release", .string(release)),
                ("proto_major", .number(Double(protocolMajor))), ("proto_minor", .number(Double(protocolMinor))),
            ] + extra)
    }

    /// The permission state, with its reason and hint where it has them.
    public static func permission(_ state: LocationPermission) -> JSONValue {
        var members: [(String, JSONValue)] = [("class", .string("PERMISSION")), ("state", .string(state.name))]
        if let source = state.source { members.append(("source", .string(source.rawValue))) }
        if let reason = state.reason { members.append(("reason", .string(reason.code.rawValue))) }
        members.append(("message", .string(state.message)))
        if let hint = state.hint { members.append(("hint", .string(hint))) }
        // Since proto_minor 9.
        if let retryAt = state.reason?.retryAt { members.append(("retry_at", Timestamp.json(retryAt))) }
        return .object(members)
    }

    /// Where the machine is, named.
    ///
    /// - Parameters:
    ///   - coordinate: the position to publish (rounded already for peers that get city-level positions).
    ///   - source: "gpsd", "geoclue" or "manual".
    public static func location(
        place: Place, coordinate: Coordinate, fix: CoarseLocation?, source: String, standIn: StandIn?,
        permission: LocationPermission, precise: Bool, preciseHint: String? = nil, distinctName: String? = nil
    ) -> JSONValue {
        /// A number, or null without one.
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
        var members = placeMembers(place, className: "LOCATION")
        members += [
            ("geoname_id", .number(Double(place.id))),
            ("latitude", .number(coordinate.latitude)), ("longitude", .number(coordinate.longitude)),
            ("accuracy", number(fix?.accuracy)), ("source", .string(source)),
            ("time", fix.map { Timestamp.json($0.time) } ?? .null),
            ("distance_m", number(fix?.distance.rounded())),
            ("state", .string(permission.name)),
        ]
        // Since proto_minor 5.
        members += [
            ("stand_in", standIn.map { .string($0.rawValue) } ?? .null),
            ("mode", number(fix.map { Double($0.mode.rawValue) })),
            ("altitude_m", number(fix?.altitude)), ("speed_mps", number(fix?.speed)),
            ("heading_deg", number(fix?.heading)), ("precise", .bool(precise)),
        ]
        if !precise, let preciseHint { members.append(("precise_hint", .string(preciseHint))) }
        // Since proto_minor 12: the name with its region where another place of that name is in the country.
        members.append(("distinct_name", .string(distinctName ?? place.displayName)))
        return .object(members)
    }

    /// `LOCATION` naming no place: nothing may or can be shown (location switched off with no city to stand in).
    public static func noLocation(permission: LocationPermission) -> JSONValue {
        .object([
            ("class", .string("LOCATION")), ("state", .string(permission.name)), ("name", .null),
            ("geoname_id", .null),
        ])
    }

    /// A place found by `lookup` or `search`, with its distance where there is a position to measure from, and the
    /// other name of the place a search matched, when not its own (`matched`).
    public static func place(
        _ place: Place, distance: Double?, matched: String? = nil, distinctName: String? = nil
    ) -> JSONValue {
        var members = placeMembers(place, className: "PLACE")
        members += [
            ("geoname_id", .number(Double(place.id))),
            ("latitude", .number(place.coordinate.latitude)), ("longitude", .number(place.coordinate.longitude)),
            ("population", .number(Double(place.population))),
        ]
        if let distance { members.append(("distance_m", .number(distance.rounded()))) }
        // Since proto_minor 10.
        if let matched { members.append(("matched", .string(matched))) }
        // Since proto_minor 12, in the answers to `lookup` and `look`.
        if let distinctName { members.append(("distinct_name", .string(distinctName))) }
        return .object(members)
    }

    /// Places found (`search`, `popular`, the `saved` list): `PLACES` with `extra` members after the class (a `class`
    /// among them takes its place), then the places.
    public static func places(_ places: [Place], extra: [(String, JSONValue)]) -> JSONValue {
        self.places(places.map { ($0, nil) }, extra: extra)
    }

    /// Places a search found, each with the other name it matched (nil for its own name), as `places(_:extra:)`.
    public static func places(_ found: [(place: Place, matched: String?)], extra: [(String, JSONValue)]) -> JSONValue {
        var members: [(String, JSONValue)] = [("class", .string("PLACES"))]
        for (key, value) in extra {
            if key == "class" { members[0] = (key, value) } else { members.append((key, value)) }
        }
        members.append(("places", .array(found.map { place($0.place, distance: nil, matched: $0.matched) })))
        return .object(members)
    }

    /// An error, answering the request with `id` (else the error's own `requestID`) when there is one.
    public static func error(_ error: ProtocolError, id: JSONValue? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("class", .string("ERROR")), ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
        ]
        if let id = id ?? error.requestID { members.append(("id", id)) }
        return .object(members)
    }

    /// The same object answering the request with `id`.
    public static func reply(_ message: JSONValue, id: JSONValue?) -> JSONValue {
        guard let id, case .object(var members) = message else { return message }
        members.removeAll { $0.0 == "id" }
        members.append(("id", id))
        return .object(members)
    }

    /// An encoded object line (its newline included) with `"id"` added as its last member, as `reply` and
    /// `encodedLine` give it when the object has no `"id"` of its own: spliced in before the closing brace, so a
    /// stored line is not parsed and encoded again. Anything but an object's line is returned as it is.
    public static func replyLine(_ line: [UInt8], id: JSONValue?) -> [UInt8] {
        guard let id, line.count >= 3, line[line.count - 2] == UInt8(ascii: "}"), line[line.count - 1] == 0x0A
        else { return line }
        var out: [UInt8] = []
        out.reserveCapacity(line.count + 32)
        out.append(contentsOf: line[..<(line.count - 2)])
        out.append(contentsOf: (line.count == 3 ? #""id":"# : #","id":"#).utf8)  // "{}": no member before it
        id.encode(into: &out)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    private static func placeMembers(_ place: Place, className: String) -> [(String, JSONValue)] {
        [
            ("class", .string(className)), ("name", .string(place.displayName)), ("city", .string(place.name)),
            ("admin1", place.admin1.map(JSONValue.string) ?? .null), ("country", .string(place.country)),
            ("country_code", .string(place.countryCode)),
        ]
    }
}

/// Times on the wire: ISO 8601 in UTC with milliseconds, as gpsd writes them.
public enum Timestamp {
    /// The times that can be written: 0000-01-01T00:00:00.000Z up to 9999-12-31T23:59:59.999Z, the years of four
    /// digits. A time from outside (a receiver's clock, a web API) can be anything a Double holds.
    static let range: Range<Double> = -62_167_219_200..<253_402_300_800

    /// The time as ISO 8601, or nil for NaN, an infinity or a time outside `range` (sent as null).
    static func iso8601(_ seconds: Double) -> String? {
        // Checked before any conversion: an Int64 from a Double out of its range traps.
        guard range.contains(seconds), let milliseconds = Int64(exactly: (seconds * 1000).rounded(.down)) else {
            return nil
        }
        let totalSeconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let millis = Int(milliseconds - totalSeconds * 1000)
        let days = totalSeconds >= 0 ? totalSeconds / 86_400 : (totalSeconds - 86_399) / 86_400
        let secondOfDay = Int(totalSeconds - days * 86_400)
        let date = CivilDate(daysSince1970: Int(days))
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }

    /// The time as a JSON string, or null where it cannot be written.
    static func json(_ seconds: Double) -> JSONValue {
        iso8601(seconds).map(JSONValue.string) ?? .null
    }

    /// Seconds since 1970 from `YYYY-MM-DDTHH:MM:SS[.fraction]` and `Z`, `±HH:MM` or `±HHMM`: what `iso8601` writes,
    /// and the same time written by another program (a leap second's :60 is the next second). Nil for anything else,
    /// or a day or time that does not exist.
    public static func seconds(iso8601 text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ length: Int) -> Int? {
            guard start + length <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + length] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, UInt8)] = [
            (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")),
            (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")),
        ]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1 }),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        guard CivilDate(daysSince1970: date.daysSince1970) == date else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let rest = bytes.count - index - 1
            let colon = rest == 5 && bytes[index + 3] == UInt8(ascii: ":")
            guard rest == 4 || colon, let hours = number(index + 1, 2),
                let minutes = number(index + (colon ? 4 : 3), 2), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3_600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        default:
            return nil
        }
        let whole = date.daysSince1970 * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Double(whole) + fraction
    }
}
