import BreezeCore

/// The one line systemd shows for breezed (`STATUS=`): the place, the source, the air quality and the broker's state,
/// or the permission's message while there is no place.
struct StatusLine {
    var place = ""
    var source = ""
    var aqi = ""
    /// What the broker link is doing; nil without one.
    var mqtt: String?
    private var last = ""

    /// The `STATUS=` line, when it differs from the one last given; nil when it does not.
    mutating func changedLine(permission: LocationPermission) -> String? {
        let parts = [place, source, aqi].filter { !$0.isEmpty }
        let line =
            "STATUS=" + (parts.isEmpty ? permission.message : parts.joined(separator: " · "))
            + (mqtt.map { " · " + $0 } ?? "")
        guard line != last else { return nil }
        last = line
        return line
    }
}
