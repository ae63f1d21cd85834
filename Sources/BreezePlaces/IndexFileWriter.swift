/// Little-endian byte output for the index builder.
struct ByteWriter {
    private(set) var data: [UInt8] = []

    mutating func bytes(_ values: [UInt8]) { data.append(contentsOf: values) }
    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func f32(_ value: Float) { u32(value.bitPattern) }
}

/// The index's string pool: each distinct string stored once, as a u16 length and its UTF-8 bytes.
struct StringPool {
    private(set) var bytes: [UInt8] = []
    private var offsets: [[UInt8]: UInt32] = [:]

    /// The reference to `text` in the pool, adding it if new.
    mutating func add(_ text: String) -> UInt32 {
        add(bytes: Array(text.utf8))
    }

    /// The reference to a byte string (a prefix may end inside a character), adding it if new. Strings longer than
    /// a u16 length allows are cut; no place name comes near that.
    mutating func add(bytes text: [UInt8]) -> UInt32 {
        if let offset = offsets[text] { return offset }
        let stored = text.prefix(Int(UInt16.max))
        let offset = UInt32(bytes.count)
        withUnsafeBytes(of: UInt16(stored.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: stored)
        offsets[text] = offset
        return offset
    }
}

/// Lays out the header, the section directory and the sections (8-byte aligned) of an index file.
struct SectionFileWriter {
    private var sections: [(tag: PlacesIndexFormat.Tag, count: Int, bytes: [UInt8])] = []

    mutating func add(_ tag: PlacesIndexFormat.Tag, count: Int, _ bytes: [UInt8]) {
        sections.append((tag, count, bytes))
    }

    func finish() -> [UInt8] {
        var out = ByteWriter()
        out.bytes(PlacesIndexFormat.magic)
        out.u32(PlacesIndexFormat.version)
        out.u32(UInt32(sections.count))
        var offset = PlacesIndexFormat.headerSize + sections.count * PlacesIndexFormat.directoryEntrySize
        var placed: [Int] = []
        for section in sections {
            offset =
                (offset + PlacesIndexFormat.alignment - 1) / PlacesIndexFormat.alignment
                * PlacesIndexFormat.alignment
            placed.append(offset)
            out.u32(section.tag.code)
            out.u32(UInt32(section.count))
            out.u64(UInt64(offset))
            out.u64(UInt64(section.bytes.count))
            offset += section.bytes.count
        }
        for (section, start) in zip(sections, placed) {
            out.bytes([UInt8](repeating: 0, count: start - out.data.count))
            out.bytes(section.bytes)
        }
        return out.data
    }
}
