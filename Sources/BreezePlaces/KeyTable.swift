/// The sorted search keys of an index, read straight from the mapped file: the slip search reads a thousand or more
/// per query, and the index's accessors cost more than the read. Bounds-checked like them.
struct KeyTable {
    private let keys: UnsafeRawPointer
    private let pool: UnsafeRawPointer
    private let poolLength: Int

    init(_ index: PlacesIndex) {
        keys = index.file.base + index.keys.offset
        pool = index.file.base + index.strings.offset
        poolLength = index.strings.length
    }

    /// The bytes of key `key` (in the index's key range); empty for a damaged reference.
    @inline(__always) func bytes(_ key: Int) -> UnsafeRawBufferPointer {
        let reference = UInt32(
            littleEndian: keys.loadUnaligned(
                fromByteOffset: key * PlacesIndexFormat.keySize, as: UInt32.self))
        let start = Int(reference)
        guard reference != PlacesIndexFormat.noString, start + 2 <= poolLength else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        let length = Int(UInt16(littleEndian: pool.loadUnaligned(fromByteOffset: start, as: UInt16.self)))
        guard start + 2 + length <= poolLength else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pool + start + 2, count: length)
    }

    /// The byte at `offset` in key `key`, or -1 when the key is shorter.
    @inline(__always) func code(_ offset: Int, ofKey key: Int) -> Int {
        let bytes = bytes(key)
        return offset < bytes.count ? Int(bytes[offset]) : -1
    }
}
