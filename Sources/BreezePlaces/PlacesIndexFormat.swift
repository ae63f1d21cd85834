/// The on-disk layout of the places index, shared by the builder and the reader.
///
/// All integers are little-endian. The file is a 16-byte header, a directory of sections, then the sections, each
/// aligned to 64 bytes (a cache line, so a 64-byte tree node is one line):
///
/// - header: magic `BREEZEPL`, format version (u32), section count (u32)
/// - directory entry (24 bytes): tag (4 ASCII bytes), record count (u32), offset (u64), length (u64)
///
/// | tag    | record (bytes) | fields |
/// |--------|----------------|--------|
/// | `META` | 1  | UTF-8 JSON: source, licence, counts, naming parameters |
/// | `STRS` | 1  | string pool: each string a u16 length then its UTF-8 bytes |
/// | `PLAC` | 24 | geonameid u32, latitude·10⁵ i32, longitude·10⁵ i32, population u32, name u32, country u16, admin1 u16 |
/// | `CTRY` | 8  | ISO code (2 bytes), padding u16, name u32 |
/// | `ADM1` | 12 | country u16, padding u16, code u32, name u32 |
/// | `TREE` | 64 | for each of two children: box min xyz f32×3, box max xyz f32×3, max weight f32, padding u32 |
/// | `TPTS` | 16 | x, y, z, weight (f32 each); the i-th point is place i; a negative weight marks a city section |
/// | `SCTY` | 4  | for each tree point: the place a city section names (u32), or `noPlace` for a place of its own |
/// | `KEYS` | 8  | folded name u32, reference u32 (place index; top bit set for an alternate name) |
/// | `PRFX` | 12 | folded prefix u32, first u32 (into `RANK`), count u32 |
/// | `RANK` | 4  | key u32: a position in `KEYS` |
///
/// String references are byte offsets into `STRS`. `TREE` is an implicit, complete k-d tree over unit vectors of
/// the places that take part in naming a position (see `TreeBuilder` for the layout): places of their own, and city
/// sections with a city to name, whose weight is stored negated (the search uses its magnitude and names the city
/// `SCTY` gives when a section wins); its node summaries hold the largest magnitude. `TPTS` holds its points in
/// tree order. `PLAC` lists those places first, in the same order, then the sections without a city. `KEYS` is
/// sorted by folded name bytes; `PRFX` lists, sorted, the prefixes that match many keys, each with its best matches
/// ranked, one key a place (version 3 ranked references, not keys, and by other weights).
enum PlacesIndexFormat {
    static let magic: [UInt8] = Array("BREEZEPL".utf8)
    static let version: UInt32 = 4
    static let headerSize = 16
    static let directoryEntrySize = 24
    static let alignment = 64

    static let placeSize = 24
    static let countrySize = 8
    static let admin1Size = 12
    static let treeNodeSize = 64
    static let treePointSize = 16
    static let keySize = 8
    static let prefixSize = 12

    static let noAdmin1: UInt16 = 0xFFFF
    static let noString: UInt32 = 0xFFFF_FFFF
    static let noPlace: UInt32 = 0xFFFF_FFFF
    static let alternateFlag: UInt32 = 0x8000_0000
    static let coordinateScale = 100_000.0

    enum Tag: String, CaseIterable {
        case meta = "META"
        case strings = "STRS"
        case places = "PLAC"
        case countries = "CTRY"
        case admin1 = "ADM1"
        case tree = "TREE"
        case treePoints = "TPTS"
        case sectionCities = "SCTY"
        case keys = "KEYS"
        case prefixes = "PRFX"
        case ranked = "RANK"

        var code: UInt32 {
            let bytes = Array(rawValue.utf8)
            return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        }
    }
}
