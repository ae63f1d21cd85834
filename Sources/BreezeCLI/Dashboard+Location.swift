import BreezeCore
import BreezeProtocol

/// Where the machine is, told as `where` and `status` show it: the place and what it is (a live fix, or what stands
/// in for one), the fix itself, how exact the position is for this user, and the permission with what to do next.
extension Dashboard {
    func location(_ message: JSONValue?, permission: JSONValue?) -> [String] {
        var lines: [String] = []
        // The name that tells the place from its namesakes ("Portland, Maine, United States"), where breezed sends it.
        if let message, let name = (message["distinct_name"] ?? message["name"])?.displayText {
            lines.append(bold(name) + dim(" · \(Self.what(message) ?? "?")"))
            if let latitude = message["latitude"]?.numberValue, let longitude = message["longitude"]?.numberValue {
                var detail = printfFormat("%.5f, %.5f", latitude, longitude)
                if let accuracy = message["accuracy"]?.numberValue { detail += " " + self.accuracy(metres: accuracy) }
                if let distance = message["distance_m"]?.numberValue {
                    detail += " · \(self.distance(metres: distance)) from the centre"
                }
                lines.append("  " + detail)
            }
            // A fix (live, or the last one before fixes stopped): what the receiver said of it.
            if message["time"]?.stringValue != nil { lines.append("  " + fixDetail(message)) }
            if message["precise"]?.boolValue == false {
                lines.append(
                    "  Positions are rounded to about 1 km for you: " + (message["precise_hint"]?.displayText ?? ""))
            }
        } else {
            lines.append(
                "No place yet: select a city ('breezectl select CITY'), set [location] fallback_city=CITY in "
                    + "breezed.conf, or wait for a fix")
        }
        if let permission {
            var state = permission["state"]?.displayText ?? "?"
            if let retry = permission["retry_at"]?.displayText.flatMap(Self.parse), retry > now {
                state += " (retrying in \(Self.age((retry - now).rounded(.up))))"
            }
            lines.append("  Location: \(state) — \(permission["message"]?.displayText ?? "")")
            if message?["stand_in"]?.stringValue == StandIn.selected.rawValue {
                lines.append(
                    "  The selected city is shown instead of this machine's position: 'breezectl here' goes back")
            } else if let hint = permission["hint"]?.displayText {
                lines.append("  Hint: \(hint)")
            }
        }
        return lines
    }

    /// The place of a look (`breezectl weather PLACE`): its name, where it is, and that breezed's own place has not
    /// changed.
    func lookedAt(_ place: JSONValue) -> [String] {
        let name = place["distinct_name"]?.displayText ?? ReplyRenderer.listedName(place)
        var lines = [bold(name) + dim(" · looked up; breezed's own place is unchanged")]
        if let latitude = place["latitude"]?.numberValue, let longitude = place["longitude"]?.numberValue {
            lines.append("  " + printfFormat("%.5f, %.5f", latitude, longitude))
        }
        return lines
    }

    /// What the place shown is: "gpsd, 3D fix" for a live position; "no fix, last from gpsd", "fallback city",
    /// "saved city", "last known place", "selected" for what stands in. Nil when the object says neither.
    static func what(_ message: JSONValue) -> String? {
        let source = message["source"]?.displayText
        guard message["name"]?.stringValue != nil else { return message["state"]?.displayText }
        guard let word = message["stand_in"]?.stringValue, let standIn = StandIn(rawValue: word) else {
            guard let source,
                let mode = Self.mode(message)
            else { return source }
            return "\(source), \(mode.title)"
        }
        return standIn == .lastFix ? "no fix, last from \(source ?? "?")" : standIn.title
    }

    /// The fix's mode, when the object has one gpsd's way (2 or 3).
    static func mode(_ message: JSONValue) -> FixMode? {
        message["mode"]?.numberValue.flatMap { Int(exactly: $0) }.flatMap(FixMode.init)
    }

    /// "3D fix · 540 m high · 43 km/h heading 270° · fix 3 s ago": what the receiver said, as exact as this user
    /// may see it.
    func fixDetail(_ message: JSONValue) -> String {
        var parts: [String] = []
        if let mode = Self.mode(message) {
            parts.append(mode.title)
        }
        if let altitude = message["altitude_m"]?.numberValue, abs(altitude) < 1e7 {
            parts.append(
                unit == .fahrenheit
                    ? printfFormat("%.0f ft high", altitude / 0.3048) : printfFormat("%.0f m high", altitude))
        }
        if let speed = message["speed_mps"]?.numberValue, speed.isFinite, speed >= 0, speed < 1e6 {
            var motion = self.speed(kilometresPerHour: speed * 3.6)
            if let heading = message["heading_deg"]?.numberValue, heading.isFinite, abs(heading) <= 360 {
                motion += printfFormat(" heading %.0f°", heading)
            }
            parts.append(motion)
        }
        if let time = message["time"]?.stringValue.flatMap(Self.parse) {
            parts.append("fix \(Self.age(max(0, now - time))) ago")
        }
        return parts.joined(separator: " · ")
    }
}
