import BreezeCore
import Synchronization

/// The offline places index: GeoNames populated places, memory-mapped, for naming positions and finding cities.
///
/// Opening maps the file and checks its directory; nothing is parsed or copied, so pages are read only when a
/// lookup touches them. Every read is bounds-checked: a damaged file gives wrong or empty answers, never a crash.
public final class PlacesIndex: Sendable {
    struct Section: Sendable {
        var offset: Int
        var count: Int
        var length: Int
    }

    let file: MappedFile
    let path: String
    let strings: Section
    let places: Section
    let countries: Section
    let admin1: Section
    let tree: Section
    let treePoints: Section
    let sectionCities: Section
    let keys: Section
    let prefixes: Section
    let ranked: Section
    let meta: Section
    /// The depth of the k-d tree, checked once against its points; nil for a damaged file whose tree does not fit.
    let treeDepth: Int?
    /// Each country's code and name, decoded once: every place answered names its country, and decoding the two
    /// strings again for each was a fifth of what reading a place cost. Only as many as `countriesDecodedAtOpen`;
    /// a damaged index claiming more has the rest decoded when asked for.
    private let countryTable: [(code: String, name: String)]
    /// The slip search's filter of key starts, built the first time it is asked for (most indexes opened are never
    /// slip-searched); the lock makes the daemon's socket thread and any other searcher build it once between them.
    private let keyPrefixFilterStore = Mutex<KeyPrefixFilter?>(nil)

    /// Maps the index at `path`.
    public convenience init(path: String) throws(PlacesIndexError) {
        try self.init(file: MappedFile(path: path), path: path)
    }

    /// Reads an index held in memory (as the builder returns it).
    public convenience init(bytes: [UInt8], name: String = "<memory>") throws(PlacesIndexError) {
        try self.init(file: MappedFile(bytes: bytes), path: name)
    }

    /// Gives back the resident memory of the pages lookups and searches have read (they are read again from the page
    /// cache when next needed): for when the daemon goes quiet after a burst of requests.
    public func releaseResidentPages() {
        file.releaseResidentPages()
    }

    /// Reads `file`, an index of a format version in `versions` (only this program's, but for `rankedAgain`).
    init(
        file: MappedFile, path: String,
        versions: ClosedRange<UInt32> = PlacesIndexFormat.version...PlacesIndexFormat.version
    ) throws(PlacesIndexError) {
        self.file = file
        self.path = path
        let size = file.count
        func corrupt(_ message: String) -> PlacesIndexError { PlacesIndexError(.corrupt, path: path, message) }

        guard size >= PlacesIndexFormat.headerSize else { throw corrupt("too short to be a places index") }
        let magic = (0..<8).map { file.base.load(fromByteOffset: $0, as: UInt8.self) }
        guard magic == PlacesIndexFormat.magic else { throw corrupt("not a places index (bad magic)") }
        let version = UInt32(littleEndian: file.base.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard versions.contains(version) else {
            throw PlacesIndexError(
                .unsupportedVersion, path: path,
                "format version \(version); this program reads version \(PlacesIndexFormat.version)")
        }
        let sectionCount = Int(UInt32(littleEndian: file.base.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        let directoryEnd = PlacesIndexFormat.headerSize + sectionCount * PlacesIndexFormat.directoryEntrySize
        guard sectionCount < 64, directoryEnd <= size else { throw corrupt("the section directory is damaged") }

        var found: [UInt32: Section] = [:]
        for entry in 0..<sectionCount {
            let at = PlacesIndexFormat.headerSize + entry * PlacesIndexFormat.directoryEntrySize
            let tag = UInt32(littleEndian: file.base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
            let count = UInt32(littleEndian: file.base.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))
            let offset = UInt64(littleEndian: file.base.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))
            let length = UInt64(littleEndian: file.base.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self))
            guard offset >= UInt64(directoryEnd), offset <= UInt64(size), length <= UInt64(size) - offset else {
                throw corrupt("section \(entry) lies outside the file")
            }
            found[tag] = Section(offset: Int(offset), count: Int(count), length: Int(length))
        }

        func section(_ tag: PlacesIndexFormat.Tag, recordSize: Int) throws(PlacesIndexError) -> Section {
            guard let section = found[tag.code] else { throw corrupt("section \(tag.rawValue) is missing") }
            guard section.count * recordSize == section.length || recordSize == 1 else {
                throw corrupt("section \(tag.rawValue) has the wrong length")
            }
            return section
        }
        meta = try section(.meta, recordSize: 1)
        strings = try section(.strings, recordSize: 1)
        places = try section(.places, recordSize: PlacesIndexFormat.placeSize)
        countries = try section(.countries, recordSize: PlacesIndexFormat.countrySize)
        admin1 = try section(.admin1, recordSize: PlacesIndexFormat.admin1Size)
        tree = try section(.tree, recordSize: PlacesIndexFormat.treeNodeSize)
        treePoints = try section(.treePoints, recordSize: PlacesIndexFormat.treePointSize)
        sectionCities = try section(.sectionCities, recordSize: 4)
        keys = try section(.keys, recordSize: PlacesIndexFormat.keySize)
        prefixes = try section(.prefixes, recordSize: PlacesIndexFormat.prefixSize)
        ranked = try section(.ranked, recordSize: 4)
        guard treePoints.count <= places.count else { throw corrupt("the tree has more points than there are places") }
        guard sectionCities.count == treePoints.count, sectionCities.length == 4 * sectionCities.count else {
            throw corrupt("section SCTY does not match the tree's points")
        }
        let depth = tree.count == 0 ? 0 : Int.bitWidth - (tree.count + 1).leadingZeroBitCount - 1
        let fits = tree.count == (1 << depth) - 1 && TreeBuilder.depth(forPointCount: treePoints.count) == depth
        treeDepth = fits ? depth : nil
        countryTable = (0..<min(countries.count, Self.countriesDecodedAtOpen)).map { [countries, strings] index in
            Self.decodeCountry(at: index, file: file, countries: countries, strings: strings)
        }
    }

    /// ISO 3166 has 249 codes; GeoNames about 250 countries.
    static let countriesDecodedAtOpen = 512

    /// The filter of the keys' first bytes, built on first use.
    var keyPrefixFilter: KeyPrefixFilter {
        keyPrefixFilterStore.withLock { filter in
            if let filter { return filter }
            let built = KeyPrefixFilter(keys: KeyTable(self), count: keys.count)
            filter = built
            return built
        }
    }

    /// How many places the index holds.
    public var count: Int { places.count }

    /// The index's own description of its source and build (JSON text).
    public var metadataJSON: String {
        String(decoding: UnsafeRawBufferPointer(start: file.base + meta.offset, count: meta.length), as: UTF8.self)
    }

    /// The place at `index` (0 ..< count), or nil outside that range.
    public func place(at index: Int) -> Place? {
        guard index >= 0, index < places.count else { return nil }
        let at = places.offset + index * PlacesIndexFormat.placeSize
        let countryIndex = Int(u16(at + 20))
        let admin1Index = u16(at + 22)
        var admin1Name: String?
        if admin1Index != PlacesIndexFormat.noAdmin1, Int(admin1Index) < admin1.count {
            admin1Name = string(at: u32(admin1.offset + Int(admin1Index) * PlacesIndexFormat.admin1Size + 8))
        }
        let (code, countryName) = country(at: countryIndex)
        return Place(
            id: Int(u32(at)),
            name: string(at: u32(at + 16)) ?? "",
            admin1: admin1Name,
            country: countryName,
            countryCode: code,
            population: Int(u32(at + 12)),
            coordinate: coordinate(ofPlace: index))
    }

    private static var noBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    /// The index of the place with GeoNames id `id`, if the index holds it. A linear scan: for commands, not loops.
    public func placeIndex(geonameID id: Int) -> Int? {
        guard id >= 0, id <= Int(UInt32.max) else { return nil }
        let wanted = UInt32(id)
        for index in 0..<places.count where u32(places.offset + index * PlacesIndexFormat.placeSize) == wanted {
            return index
        }
        return nil
    }

    func coordinate(ofPlace index: Int) -> Coordinate {
        let at = places.offset + index * PlacesIndexFormat.placeSize
        return Coordinate(
            latitude: Double(Int32(bitPattern: u32(at + 4))) / PlacesIndexFormat.coordinateScale,
            longitude: Double(Int32(bitPattern: u32(at + 8))) / PlacesIndexFormat.coordinateScale)
    }

    func population(ofPlace index: Int) -> UInt32 {
        u32(places.offset + index * PlacesIndexFormat.placeSize + 12)
    }

    /// The place's own name.
    func name(ofPlace index: Int) -> String {
        string(at: nameReference(ofPlace: index)) ?? ""
    }

    /// The string reference of the place's own name.
    func nameReference(ofPlace index: Int) -> UInt32 {
        u32(places.offset + index * PlacesIndexFormat.placeSize + 16)
    }

    /// The city a city section names, or nil for a place of its own or a section without a city.
    func sectionCity(ofPlace index: Int) -> Int? {
        guard index >= 0, index < treePoints.count,
            f32(treePoints.offset + index * PlacesIndexFormat.treePointSize + 12) < 0
        else { return nil }
        let city = u32(sectionCities.offset + index * 4)
        return city == PlacesIndexFormat.noPlace || Int(city) >= places.count ? nil : Int(city)
    }

    /// Whether the place is a city section without a city to name: those come after the tree's points.
    func isSectionWithoutCity(_ index: Int) -> Bool {
        index >= treePoints.count
    }

    func countryIndex(ofPlace index: Int) -> Int {
        Int(u16(places.offset + index * PlacesIndexFormat.placeSize + 20))
    }

    func admin1Index(ofPlace index: Int) -> Int? {
        let value = u16(places.offset + index * PlacesIndexFormat.placeSize + 22)
        return value == PlacesIndexFormat.noAdmin1 || Int(value) >= admin1.count ? nil : Int(value)
    }

    func country(at index: Int) -> (code: String, name: String) {
        index < countryTable.count
            ? countryTable[index] : Self.decodeCountry(at: index, file: file, countries: countries, strings: strings)
    }

    private static func decodeCountry(
        at index: Int, file: MappedFile, countries: Section, strings: Section
    ) -> (code: String, name: String) {
        let bytes = countryBytes(at: index, file: file, countries: countries, strings: strings)
        return (String(decoding: bytes.code, as: UTF8.self), String(decoding: bytes.name, as: UTF8.self))
    }

    /// The bytes of the country's code and name: none for a country the index does not have, or a name it cannot
    /// find.
    private static func countryBytes(
        at index: Int, file: MappedFile, countries: Section, strings: Section
    ) -> (code: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer) {
        guard index < countries.count else { return (noBytes, noBytes) }
        let at = countries.offset + index * PlacesIndexFormat.countrySize
        let reference = UInt32(littleEndian: file.base.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))
        return (
            UnsafeRawBufferPointer(start: file.base + at, count: 2),
            stringBytes(at: reference, file: file, strings: strings) ?? noBytes
        )
    }

    /// The admin1 entry's (code, name) string references.
    func admin1Strings(at index: Int) -> (code: UInt32, name: UInt32) {
        let at = admin1.offset + index * PlacesIndexFormat.admin1Size
        return (u32(at + 4), u32(at + 8))
    }

    // MARK: - Raw reads

    /// The section of `tag`, as the directory gives it.
    func section(_ tag: PlacesIndexFormat.Tag) -> Section {
        switch tag {
        case .meta: meta
        case .strings: strings
        case .places: places
        case .countries: countries
        case .admin1: admin1
        case .tree: tree
        case .treePoints: treePoints
        case .sectionCities: sectionCities
        case .keys: keys
        case .prefixes: prefixes
        case .ranked: ranked
        }
    }

    /// A copy of the bytes of `section`.
    func bytes(of section: Section) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: file.base + section.offset, count: section.length))
    }

    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: file.base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: file.base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always) func f32(_ offset: Int) -> Float {
        Float(bitPattern: u32(offset))
    }

    /// The bytes of the pool string at `reference`, or nil when the reference is none or out of bounds.
    @inline(__always) func stringBytes(at reference: UInt32) -> UnsafeRawBufferPointer? {
        Self.stringBytes(at: reference, file: file, strings: strings)
    }

    @inline(__always) private static func stringBytes(
        at reference: UInt32, file: MappedFile, strings: Section
    ) -> UnsafeRawBufferPointer? {
        guard reference != PlacesIndexFormat.noString else { return nil }
        let start = Int(reference)
        guard start + 2 <= strings.length else { return nil }
        let length = Int(
            UInt16(
                littleEndian: file.base.loadUnaligned(
                    fromByteOffset: strings.offset + start, as: UInt16.self)))
        guard start + 2 + length <= strings.length else { return nil }
        return UnsafeRawBufferPointer(start: file.base + strings.offset + start + 2, count: length)
    }

    func string(at reference: UInt32) -> String? {
        stringBytes(at: reference).map { String(decoding: $0, as: UTF8.self) }
    }
}
