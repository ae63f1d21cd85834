import BreezeCore
import BreezeGeoClue

/// Values as a bus peer may send them, built from the bytes (libdbus has already checked their wire form; what is
/// left to a hostile peer is their values), read as a GeoClue Location object's properties.
enum DBusFuzzing {
    static let keys = ["Latitude", "Longitude", "Accuracy", "Altitude", "Speed", "Heading", "Timestamp", "Description"]

    static func feed(_ bytes: [UInt8]) {
        var reader = FuzzReader(bytes)
        var properties: [String: DBusValue] = [:]
        while !reader.isEmpty {
            let key = keys[Int(reader.byte()) % keys.count]
            let value = value(&reader, depth: 0)
            properties[key] = value
            _ = (value.signature, value.unwrapped, value.string, value.double, value.uint64, value.bool)
            _ = value.stringDictionary
        }
        guard let fix = GeoClueSource.fix(fromLocation: properties) else { return }
        guard Coordinate(validatingLatitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude) != nil
        else { fatalError("an impossible fix got through: \(fix)") }
    }

    static func value(_ reader: inout FuzzReader, depth: Int) -> DBusValue {
        let kind = reader.byte() % (depth < 4 ? 12 : 9)
        switch kind {
        case 0: return .byte(reader.byte())
        case 1: return .bool(reader.byte() & 1 == 1)
        case 2: return .int32(Int32(truncatingIfNeeded: reader.integer()))
        case 3: return .uint32(UInt32(truncatingIfNeeded: reader.integer()))
        case 4: return .int64(Int64(bitPattern: reader.integer()))
        case 5: return .uint64(reader.integer())
        case 6: return .double(Double(bitPattern: reader.integer()))
        case 7: return .string(reader.text())
        case 8: return .objectPath(reader.text())
        case 9: return .variant(value(&reader, depth: depth + 1))
        case 10:
            let values = (0..<Int(reader.byte() % 4)).map { _ in value(&reader, depth: depth + 1) }
            return .structure(values)
        default:
            let entries = (0..<Int(reader.byte() % 4)).map { _ in
                DBusValue.dictEntry(.string(reader.text()), .variant(value(&reader, depth: depth + 1)))
            }
            return .array(signature: "{sv}", entries)
        }
    }
}

/// Reads fuzz bytes as a sequence of small choices; past the end, everything reads as zero.
struct FuzzReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isEmpty: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func integer() -> UInt64 {
        (0..<8).reduce(0) { value, _ in value << 8 | UInt64(byte()) }
    }

    mutating func text() -> String {
        let count = Int(byte() % 16)
        return String(decoding: (0..<count).map { _ in byte() }, as: UTF8.self)
    }
}
