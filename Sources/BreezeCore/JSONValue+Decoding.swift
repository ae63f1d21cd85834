extension JSONValue {
    /// The JSON text in `bytes` as a `T`: read by `JSONReader` (strict, bounded in depth), then decoded. How web
    /// answers, the state file and the cache are read.
    /// - Throws: `JSONSyntaxError` when the text is not JSON; `DecodingError` naming the path when it is not a `T`.
    public static func decode<T: Decodable>(
        _ type: T.Type, from bytes: some Collection<UInt8>, repeatedKeys: JSONReader.RepeatedKeys = .lastWins
    ) throws -> T {
        try JSONReader.value(of: bytes, repeatedKeys: repeatedKeys).decoded(as: type)
    }

    /// This value as a `T`, through `T`'s `Decodable` conformance. A number decodes as an integer type only when
    /// it is exactly one (3 as an `Int`; not 3.5, nor 1e300 as an `Int32`).
    /// - Throws: `DecodingError` naming the path to what does not fit.
    public func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try T(from: ValueDecoder(value: self, codingPath: []))
    }
}

/// A `Decoder` over one `JSONValue`; each container decodes the values inside it with a decoder of its own.
private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    let found =
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    if case .null = value {
        return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
    }
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(found)"))
}

/// An object's members by key; a key given twice has the value the reader kept.
private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let allKeys: [Key]
    let codingPath: [any CodingKey]

    init(members: [(String, JSONValue)], codingPath: [any CodingKey]) {
        self.members = Dictionary(members, uniquingKeysWith: { _, last in last })
        self.allKeys = members.compactMap { Key(stringValue: $0.0) }
        self.codingPath = codingPath
    }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "no value for \"\(key.stringValue)\""))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: ValueDecoder(value: value(key), codingPath: codingPath + [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

/// An array's elements, taken in turn.
private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    /// The path to the next element: its index, as Foundation's decoder names it.
    private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: currentIndex)] }

    private mutating func next(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: nextPath, debugDescription: "the array has only \(elements.count) elements"))
        }
        defer { currentIndex += 1 }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = nextPath
        return try T(from: ValueDecoder(value: next(type), codingPath: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let path = nextPath
        return try ValueDecoder(value: next(type), codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = nextPath
        return try ValueDecoder(value: next([JSONValue].self), codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = nextPath
        return try ValueDecoder(value: next(JSONValue.self), codingPath: path)
    }
}

/// One value: a primitive, or null. Every type's decoding ends here: `Int(from:)` asks for `decode(Int.self)`.
private struct SingleValueContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(type, value, codingPath) }
        return bool
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let string) = value else { throw mismatch(type, value, codingPath) }
        return string
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(type, value, codingPath) }
        return number
    }

    func decode(_ type: Float.Type) throws -> Float {
        let number = try decode(Double.self)
        guard Float(number).isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "\(JSONValue.format(number)) is not a Float"))
        }
        return Float(number)
    }

    /// The number, when it is exactly an `Integer` and a safe one (below 2^53 in magnitude): read as a `Double`, a
    /// larger text may have been rounded (9007199254740993 reads as 2^53), so which integer it named is not known.
    private func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        guard case .number(let number) = value else { throw mismatch(type, value, codingPath) }
        guard abs(number) < 9_007_199_254_740_992, let exact = Integer(exactly: number) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "\(JSONValue.format(number)) is not a \(type)"))
        }
        return exact
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: codingPath))
    }
}

/// An array index in a coding path.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { intValue.map { "Index \($0)" } ?? "" }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
