/// A member's name in a gpsd report: one of the names gpsd's TPV and SKY reports use, known by number, or any other
/// name, kept as text. A name is known exactly when its text is one of `Name`'s, so two keys are equal exactly when
/// their texts are.
///
/// A moving receiver sends a report a second, or ten, of twenty members each: telling a known name from its bytes,
/// and comparing numbers, costs a small part of making each name a `String` and comparing strings.
enum GPSDKey: Equatable, Sendable {
    case known(Name)
    case other(String)

    /// The names of TPV's and SKY's members (gpsd's protocol, 3.x), and so of nearly every member gpsd sends.
    enum Name: String, CaseIterable, Sendable {
        case `class`, device, mode, time, ept, lat, lon, altHAE, altMSL, alt, epx, epy, epv, track, magtrack, magvar
        case speed, climb, eps, epc, geoidSep, eph, sep, status, leapseconds, ecefx, ecefy, ecefz, ecefpAcc, ecefvx
        case ecefvy, ecefvz, ecefvAcc, velN, velE, velD, epd, dgpsAge, dgpsSta
        case satellites
        case prn = "PRN"
        case el, az, ss, used, gnssid, svid, sigid, freqid, health, xdop, ydop, vdop, tdop, hdop
        case gdop, pdop, nSat, uSat

        /// Where the name is in `allCases`: below 64, so that a word holds a bit for each. A case without a payload
        /// is stored as its place in the declaration (Swift's type layout), so this costs nothing. Numbers that
        /// collided, or reached 64, would fail the report tests that give every name once in one report and each
        /// name twice.
        var number: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

        /// The names by length, each packed into an integer a byte at a time, for telling a name from its bytes.
        private static let byLength: [[(packed: UInt128, name: Name)]] = {
            var table = Array(repeating: [(packed: UInt128, name: Name)](), count: 17)
            for name in allCases {
                let bytes = Array(name.rawValue.utf8)
                table[bytes.count].append((bytes.withUnsafeBufferPointer(pack), name))
            }
            return table
        }()

        private static func pack(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt128 {
            var packed: UInt128 = 0
            for byte in bytes { packed = packed << 8 | UInt128(byte) }
            return packed
        }

        /// The name `bytes` spell, when they spell one of these; nil for any other bytes.
        static func spelled(by bytes: UnsafeBufferPointer<UInt8>) -> Name? {
            guard bytes.count < byLength.count else { return nil }
            let packed = pack(bytes)
            for entry in byLength[bytes.count] where entry.packed == packed { return entry.name }
            return nil
        }
    }

    /// The key named `text`: known when `text` is one of `Name`'s.
    init(_ text: String) {
        self = Name(rawValue: text).map { .known($0) } ?? .other(text)
    }
}
