import BreezeCore
import Foundation

/// Writes NMEA 0183 logs (GGA and RMC sentences with checksums) that the tests replay through gpsd.
public struct NMEALog {
    public enum Epoch {
        case fix(Coordinate)
        case noFix
    }

    public var epochs: [Epoch] = []
    /// The receiver's clock at the first epoch, seconds since 1970 (tests set it decades off).
    public var startTime: Double = 1_780_000_000

    public init() {}

    /// `count` epochs at one place.
    public mutating func stay(at coordinate: Coordinate, count: Int) {
        epochs += Array(repeating: .fix(coordinate), count: count)
    }

    /// `count` epochs on a straight line from `start` to `end` (end included).
    public mutating func drive(from start: Coordinate, to end: Coordinate, count: Int) {
        for step in 1...count {
            let t = Double(step) / Double(count)
            epochs.append(.fix(Coordinate(
                latitude: start.latitude + (end.latitude - start.latitude) * t,
                longitude: start.longitude + (end.longitude - start.longitude) * t)))
        }
    }

    public mutating func lose(count: Int) {
        epochs += Array(repeating: .noFix, count: count)
    }

    public func text() -> String {
        var lines: [String] = []
        for (index, epoch) in epochs.enumerated() {
            let seconds = Int(startTime) + index
            let time = Self.time(seconds)
            let date = Self.date(seconds)
            switch epoch {
            case .fix(let c):
                let lat = Self.angle(c.latitude, degreesWidth: 2, positive: "N", negative: "S")
                let lon = Self.angle(c.longitude, degreesWidth: 3, positive: "E", negative: "W")
                lines.append(Self.sentence("GPGGA,\(time),\(lat),\(lon),1,08,0.9,545.4,M,46.9,M,,"))
                lines.append(Self.sentence("GPRMC,\(time),A,\(lat),\(lon),022.4,084.4,\(date),003.1,W"))
            case .noFix:
                lines.append(Self.sentence("GPGGA,\(time),,,,,0,00,,,M,,M,,"))
                lines.append(Self.sentence("GPRMC,\(time),V,,,,,,,\(date),,"))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Writes the log to a new temporary file and returns its path.
    public func write(name: String) throws -> String {
        let path = TemporaryPaths.make(name, suffix: ".log")
        try text().write(toFile: path, atomically: true, encoding: .ascii)
        return path
    }

    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        let hex = String(checksum, radix: 16, uppercase: true)
        return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)"
    }

    static func angle(_ value: Double, degreesWidth: Int, positive: String, negative: String) -> String {
        let magnitude = abs(value)
        let degrees = Int(magnitude)
        let minutes = (magnitude - Double(degrees)) * 60
        let degreeText = String(repeating: "0", count: max(0, degreesWidth - String(degrees).count)) + String(degrees)
        let minuteText = String(format: "%07.4f", minutes)
        return "\(degreeText)\(minuteText),\(value >= 0 ? positive : negative)"
    }

    static func time(_ seconds: Int) -> String {
        let s = seconds % 86_400
        return String(format: "%02d%02d%02d.00", s / 3600, s / 60 % 60, s % 60)
    }

    static func date(_ seconds: Int) -> String {
        let date = CivilDate(daysSince1970: seconds / 86_400)
        return String(format: "%02d%02d%02d", date.day, date.month, date.year % 100)
    }
}
