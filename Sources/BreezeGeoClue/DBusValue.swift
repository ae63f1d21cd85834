/// A D-Bus value, as messages carry them.
public indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case variant(DBusValue)
    /// Elements share `signature` (needed to write an empty array).
    case array(signature: String, [DBusValue])
    case structure([DBusValue])
    case dictEntry(DBusValue, DBusValue)

    /// The D-Bus type signature of this value.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .variant: "v"
        case .array(let signature, _): "a" + signature
        case .structure(let values): "(" + values.map(\.signature).joined() + ")"
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        }
    }

    /// A variant's content, or the value itself.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let value), .objectPath(let value): value
        default: nil
        }
    }

    public var double: Double? {
        switch unwrapped {
        case .double(let value): value
        case .int32(let value): Double(value)
        case .uint32(let value): Double(value)
        case .int64(let value): Double(value)
        case .uint64(let value): Double(value)
        default: nil
        }
    }

    public var uint64: UInt64? {
        switch unwrapped {
        case .uint64(let value): value
        case .uint32(let value): UInt64(value)
        default: nil
        }
    }

    public var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    /// An `a{sv}` (or any dictionary with string keys) as a Swift dictionary; nil for anything else.
    public var stringDictionary: [String: DBusValue]? {
        guard case .array(_, let entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .dictEntry(let key, let value) = entry, let name = key.string else { return nil }
            result[name] = value
        }
        return result
    }

    /// An `a{sv}` from a dictionary.
    public static func properties(_ values: [(String, DBusValue)]) -> DBusValue {
        .array(signature: "{sv}", values.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }
}
