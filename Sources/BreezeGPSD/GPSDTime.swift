import BreezeCore

/// A receiver's time as gpsd writes it ("2017-07-19T08:50:00.800Z"), exact to the nanosecond so that two reports
/// of one epoch compare equal.
struct GPSDTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Seconds since 1970 (negative before; receivers can be decades off).
    var seconds: Int64
    var nanoseconds: Int32

    init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (UTC, up to nine fraction digits, a leap second's :60 allowed);
    /// nil for anything else, including dates that do not exist.
    init?(iso8601 text: String) {
        var text = text
        guard let time = text.withUTF8({ Self.parse(iso8601: $0) }) else { return nil }
        self = time
    }

    /// `init(iso8601:)` on the text's bytes, read in place: a moving receiver's time is read once a fix.
    private static func parse(iso8601 bytes: UnsafeBufferPointer<UInt8>) -> GPSDTime? {
        guard bytes.count >= 20, bytes.count <= 30, bytes.last == UInt8(ascii: "Z") else { return nil }
        func field(_ start: Int, _ length: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + length] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = field(0, 4), let month = field(5, 2), let day = field(8, 2), let hour = field(11, 2),
            let minute = field(14, 2), let second = field(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        // A day that does not exist (30 February) does not survive the round trip through the day count.
        let date = CivilDate(year: year, month: month, day: day)
        let days = date.daysSince1970
        guard CivilDate(daysSince1970: days) == date else { return nil }
        var nanoseconds = 0
        let fractionCount = bytes.count - 20  // between the seconds and the Z
        if fractionCount > 0 {
            guard bytes[19] == UInt8(ascii: "."), (2...10).contains(fractionCount),
                let digits = field(20, fractionCount - 1)
            else { return nil }
            nanoseconds = digits
            for _ in fractionCount - 1..<9 { nanoseconds *= 10 }
        }
        return GPSDTime(
            seconds: Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second),
            nanoseconds: Int32(nanoseconds))
    }

    /// Seconds since 1970 as a Double, for `LocationFix.receiverTime`.
    var secondsSince1970: Double {
        Double(seconds) + Double(nanoseconds) / 1e9
    }

    /// How far `self` is after `other`, in seconds (negative when before).
    func seconds(after other: GPSDTime) -> Double {
        Double(seconds - other.seconds) + Double(nanoseconds - other.nanoseconds) / 1e9
    }

    static func < (left: GPSDTime, right: GPSDTime) -> Bool {
        (left.seconds, left.nanoseconds) < (right.seconds, right.nanoseconds)
    }

    var description: String {
        "\(seconds).\(String(String(nanoseconds + 1_000_000_000).dropFirst()))"
    }
}
