import BreezeCore

/// One report line from gpsd, read strictly: a TPV is used only when the whole line is valid JSON and every field
/// this program reads has the type and range gpsd's protocol gives it.
enum GPSDReport: Equatable, Sendable {
    /// A TPV with a 2D or 3D fix.
    case position(GPSDPosition)
    /// A TPV saying the receiver has no fix (mode 1).
    case noFix
    /// Anything else gpsd sends (VERSION, DEVICES, WATCH, SKY, ...), or a TPV whose mode is 0 (not seen yet).
    case other(String)

    /// Heights a receiver on or above the ground can report, metres: the deepest ocean floor to far above any
    /// aircraft; anything outside is a broken report, not a height.
    static let altitudeRange = -12_000.0...1_000_000.0

    /// Reads one line (without its newline).
    /// - Throws: `GPSDReportError` naming the field that is missing, of the wrong type or out of range.
    static func parse(_ line: some Collection<UInt8>) throws(GPSDReportError) -> GPSDReport {
        // A key given twice is refused: two readers of the same line could otherwise disagree on its value.
        guard let report = try? JSONReader.value(of: line, repeatedKeys: .refused), case .object = report else {
            throw GPSDReportError(field: nil, "not a JSON object")
        }
        guard case .string(let kind)? = report["class"] else {
            throw GPSDReportError(field: "class", "missing or not a string")
        }
        guard kind == "TPV" else { return .other(kind) }
        let mode: FixMode
        switch try integer(report, "mode") {
        case 0: return .other(kind)
        case 1: return .noFix
        case 2: mode = .twoD
        case 3: mode = .threeD
        case let other: throw GPSDReportError(field: "mode", "\(other) is not 0, 1, 2 or 3")
        }
        let latitude = try number(report, "lat", in: -90...90)
        let longitude = try number(report, "lon", in: -180...180)
        guard let latitude, let longitude else {
            throw GPSDReportError(field: latitude == nil ? "lat" : "lon", "missing from a \(mode.title)")
        }
        var time: GPSDTime?
        switch report["time"] {
        case nil: break  // some receivers never send one (Garmin Geko 201)
        case .string(let text)?:
            guard let parsed = GPSDTime(iso8601: text) else {
                throw GPSDReportError(field: "time", "\"\(Self.escaped(text))\" is not an ISO 8601 time")
            }
            time = parsed
        case _?:
            throw GPSDReportError(field: "time", "not a string")
        }
        var altitude: Double?
        if mode == .threeD {
            altitude = try number(report, "altMSL", in: altitudeRange)
            if altitude == nil { altitude = try number(report, "alt", in: altitudeRange) }
        }
        return .position(
            GPSDPosition(
                coordinate: Coordinate(latitude: latitude, longitude: longitude), mode: mode, time: time,
                altitude: altitude,
                horizontalError: try number(report, "eph", in: 0...Double.greatestFiniteMagnitude),
                speed: try number(report, "speed", in: 0...Double.greatestFiniteMagnitude),
                track: try number(report, "track", in: 0..<360)))
    }

    private static func integer(_ report: JSONValue, _ field: String) throws(GPSDReportError) -> Int {
        guard case .number(let value)? = report[field] else {
            throw GPSDReportError(field: field, report[field] == nil ? "missing" : "not a number")
        }
        guard let integer = Int(exactly: value) else {
            throw GPSDReportError(field: field, "\(value) is not an integer")
        }
        return integer
    }

    private static func number(
        _ report: JSONValue, _ field: String, in range: some RangeExpression<Double>
    ) throws(GPSDReportError) -> Double? {
        switch report[field] {
        case nil: return nil
        case .number(let value)?:
            guard value.isFinite, range.contains(value) else {
                throw GPSDReportError(field: field, "\(value) is out of range")
            }
            return value
        case _?:
            throw GPSDReportError(field: field, "not a number")
        }
    }

    /// Outside text made safe for a log line: printable ASCII kept, the rest as escapes, at most 40 characters.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars.prefix(40) {
            result +=
                (0x20..<0x7F).contains(scalar.value) && scalar != "\\" ? String(scalar) : scalar.escaped(asASCII: true)
        }
        return result
    }
}

/// A 2D or 3D fix from a TPV report, every field checked.
struct GPSDPosition: Equatable, Sendable {
    var coordinate: Coordinate
    var mode: FixMode
    /// The receiver's time for the fix; nil when the receiver sends none.
    var time: GPSDTime?
    /// Metres above mean sea level (3D fixes only).
    var altitude: Double?
    /// gpsd's `eph`, metres.
    var horizontalError: Double?
    /// Metres per second.
    var speed: Double?
    /// Degrees from true north, 0 up to 360.
    var track: Double?
}

/// Why a report line was not used.
struct GPSDReportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The field at fault; nil when the line as a whole is not a report.
    var field: String?
    var message: String

    init(field: String?, _ message: String) {
        self.field = field
        self.message = message
    }

    var description: String {
        field.map { "gpsd report field \"\($0)\": \(message)" } ?? "gpsd sent a line that is \(message)"
    }
}
