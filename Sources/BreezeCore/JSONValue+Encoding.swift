extension JSONValue {
    /// `value` as a `JSONValue`, through its `Encodable` conformance: how the state file and the cache are written.
    /// Object members keep the order the value encodes them in; a key encoded twice keeps its last value.
    /// - Throws: `EncodingError.invalidValue` for a number JSON cannot hold exactly (infinity, NaN, or an integer
    ///   of 2^53 or more in magnitude, which a reader holding numbers as `Double` may have rounded).
    public static func encoding<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = Slot()
        try value.encode(to: ValueEncoder(slot: root, codingPath: []))
        return root.value
    }
}

/// Where one value goes while it is being encoded. A reference, because a container is handed out before its
/// members are encoded into it (and may be asked for again).
private final class Slot {
    enum Content {
        case empty
        case value(JSONValue)
        case object([(String, Slot)])
        case array([Slot])
    }

    var content = Content.empty

    /// What was encoded here; an encoder that wrote nothing gives an empty object, as Foundation's does.
    var value: JSONValue {
        switch content {
        case .empty: .object([])
        case .value(let value): value
        case .object(let members): .object(members.map { ($0.0, $0.1.value) })
        case .array(let elements): .array(elements.map(\.value))
        }
    }

    /// A new slot for `key` in this object, replacing one the key had.
    func member(_ key: String) -> Slot {
        let slot = Slot()
        guard case .object(var members) = content else {
            content = .object([(key, slot)])
            return slot
        }
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = slot
        } else {
            members.append((key, slot))
        }
        content = .object(members)
        return slot
    }

    /// A new slot at the end of this array.
    func element() -> Slot {
        let slot = Slot()
        guard case .array(var elements) = content else {
            content = .array([slot])
            return slot
        }
        elements.append(slot)
        content = .array(elements)
        return slot
    }

    /// Makes this slot an object (kept if it is one), so an encoder that encodes no member still writes `{}`.
    func makeObject() {
        if case .object = content { return }
        content = .object([])
    }

    /// Makes this slot an array (kept if it is one).
    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }
}

private struct ValueEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.makeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.makeArray()
        return UnkeyedContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    private func encoder(_ key: Key) -> ValueEncoder {
        ValueEncoder(slot: slot.member(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { slot.member(key.stringValue).content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try value.encode(to: encoder(key)) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        ValueEncoder(slot: slot.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(key) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    var count: Int {
        guard case .array(let elements) = slot.content else { return 0 }
        return elements.count
    }

    private func encoder() -> ValueEncoder {
        let path = codingPath + [IndexKey(intValue: count)]
        return ValueEncoder(slot: slot.element(), codingPath: path)
    }

    mutating func encodeNil() throws { slot.element().content = .value(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: encoder()) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { encoder().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { encoder() }
}

/// One value: a primitive, or null. Every type's encoding ends here: `Int.encode(to:)` asks for `encode(_: Int)`.
private struct SingleValueContainer: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    private func put(_ value: JSONValue) { slot.content = .value(value) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }

    mutating func encode(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
        }
        put(.number(value))
    }

    mutating func encode(_ value: Float) throws { try encode(Double(value)) }

    /// An integer, when it is a safe one (below 2^53 in magnitude): what the decoder reads back without doubt.
    private func integer(_ value: some FixedWidthInteger) throws {
        guard let exact = Double(exactly: value), abs(exact) < 9_007_199_254_740_992 else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) is too large for a JSON number"))
        }
        put(.number(exact))
    }

    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: ValueEncoder(slot: slot, codingPath: codingPath))
    }
}
