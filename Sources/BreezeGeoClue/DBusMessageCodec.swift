internal import CDBus

/// Writes `DBusValue`s into libdbus messages and reads them back, checking every type: a reply of the wrong shape
/// is an error value, never a crash.
struct DBusMessageCodec {
    /// libdbus's functions (`DBusLibrary`).
    let dbus: UnsafePointer<CDBus_api>

    init(_ dbus: UnsafePointer<CDBus_api>) {
        self.dbus = dbus
    }

    func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
        var iterator = DBusMessageIter()
        dbus.pointee.message_iter_init_append(message, &iterator)
        return values.allSatisfy { append($0, to: &iterator) }
    }

    private func append(_ value: DBusValue, to iterator: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(let byte): return CDBus_append_byte(dbus, &iterator, byte) != 0
        case .bool(let flag): return CDBus_append_bool(dbus, &iterator, flag ? 1 : 0) != 0
        case .int32(let number): return CDBus_append_int32(dbus, &iterator, number) != 0
        case .uint32(let number): return CDBus_append_uint32(dbus, &iterator, number) != 0
        case .int64(let number): return CDBus_append_int64(dbus, &iterator, number) != 0
        case .uint64(let number): return CDBus_append_uint64(dbus, &iterator, number) != 0
        case .double(let number): return CDBus_append_double(dbus, &iterator, number) != 0
        case .string(let text):
            // libdbus aborts on invalid UTF-8 or NUL: refuse such text here.
            guard !text.utf8.contains(0) else { return false }
            return CDBus_append_string(dbus, &iterator, CDBus_TYPE_STRING(), text) != 0
        case .objectPath(let path):
            guard dbus.pointee.validate_path(path, nil) != 0 else { return false }
            return CDBus_append_string(dbus, &iterator, CDBus_TYPE_OBJECT_PATH(), path) != 0
        case .variant(let inner):
            return container(CDBus_TYPE_VARIANT(), inner.signature, &iterator) { sub in append(inner, to: &sub) }
        case .array(let signature, let elements):
            return container(CDBus_TYPE_ARRAY(), signature, &iterator) { sub in
                elements.allSatisfy { append($0, to: &sub) }
            }
        case .structure(let fields):
            return container(CDBus_TYPE_STRUCT(), nil, &iterator) { sub in fields.allSatisfy { append($0, to: &sub) } }
        case .dictEntry(let key, let entry):
            return container(CDBus_TYPE_DICT_ENTRY(), nil, &iterator) { sub in
                append(key, to: &sub) && append(entry, to: &sub)
            }
        }
    }

    private func container(
        _ type: Int32, _ signature: String?, _ iterator: inout DBusMessageIter, _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened =
            signature.map { dbus.pointee.message_iter_open_container(&iterator, type, $0, &sub) }
            ?? dbus.pointee.message_iter_open_container(&iterator, type, nil, &sub)
        guard opened != 0 else { return false }
        guard body(&sub) else {
            dbus.pointee.message_iter_abandon_container(&iterator, &sub)
            return false
        }
        return dbus.pointee.message_iter_close_container(&iterator, &sub) != 0
    }

    /// Every argument of `message`.
    func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus.pointee.message_iter_init(message, &iterator) != 0 else { return [] }
        return values(&iterator)
    }

    private func values(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var result: [DBusValue] = []
        while dbus.pointee.message_iter_get_arg_type(&iterator) != CDBus_TYPE_INVALID() {
            if let value = value(&iterator) { result.append(value) }
            if dbus.pointee.message_iter_next(&iterator) == 0 { break }
        }
        return result
    }

    private func value(_ iterator: inout DBusMessageIter) -> DBusValue? {
        let type = dbus.pointee.message_iter_get_arg_type(&iterator)
        switch type {
        case CDBus_TYPE_BYTE(): return .byte(CDBus_get_byte(dbus, &iterator))
        case CDBus_TYPE_BOOLEAN(): return .bool(CDBus_get_uint32(dbus, &iterator) != 0)
        case CDBus_TYPE_INT32(): return .int32(CDBus_get_int32(dbus, &iterator))
        case CDBus_TYPE_UINT32(): return .uint32(CDBus_get_uint32(dbus, &iterator))
        case CDBus_TYPE_INT64(): return .int64(CDBus_get_int64(dbus, &iterator))
        case CDBus_TYPE_UINT64(): return .uint64(CDBus_get_uint64(dbus, &iterator))
        case CDBus_TYPE_DOUBLE(): return .double(CDBus_get_double(dbus, &iterator))
        case CDBus_TYPE_STRING(): return CDBus_get_string(dbus, &iterator).map { .string(String(cString: $0)) }
        case CDBus_TYPE_OBJECT_PATH(): return CDBus_get_string(dbus, &iterator).map { .objectPath(String(cString: $0)) }
        case CDBus_TYPE_VARIANT():
            var sub = DBusMessageIter()
            dbus.pointee.message_iter_recurse(&iterator, &sub)
            return value(&sub).map { .variant($0) }
        case CDBus_TYPE_ARRAY():
            let signature =
                dbus.pointee.message_iter_get_signature(&iterator).map { pointer in
                    defer { dbus.pointee.free(pointer) }
                    return String(String(cString: pointer).dropFirst())
                } ?? ""
            var sub = DBusMessageIter()
            dbus.pointee.message_iter_recurse(&iterator, &sub)
            return .array(signature: signature, values(&sub))
        case CDBus_TYPE_STRUCT():
            var sub = DBusMessageIter()
            dbus.pointee.message_iter_recurse(&iterator, &sub)
            return .structure(values(&sub))
        case CDBus_TYPE_DICT_ENTRY():
            var sub = DBusMessageIter()
            dbus.pointee.message_iter_recurse(&iterator, &sub)
            let pair = values(&sub)
            guard pair.count == 2 else { return nil }
            return .dictEntry(pair[0], pair[1])
        default:
            return nil  // unix fds, signatures, int16: nothing GeoClue sends us
        }
    }
}
