import BreezeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The rule that picks, for a position, the place a person there would name.
///
/// GeoNames lists city sections ("Downtown" in Edmonton, "Near North Side" in Chicago) beside the cities, each with
/// its own population, so the nearest entry is often not the answer. The rule has three parts:
///
/// 1. **Sections.** When the index is built, a place is a *section* of a city, from GeoNames' codes where the
///    place has them (`PlaceSourceRecord.featureCode`, `administrativeCodes`):
///    - a place coded `PPLX` ("section of populated place") is a section;
///    - a place within `sectionCapKm` of one at least `municipalitySectionRatio` times its population with the
///      same administrative codes down to admin3 or admin4 (the same municipality) is a section of it;
///    - otherwise a place is a section of a bigger one when that place has at least `sectionRatio` times its
///      population and lies within its section radius — `sectionScale·√population` of the bigger place, scaled
///      down for less lopsided pairs (full at 100 times the population, half at 10) and capped at `sectionCapKm` —
///      unless administrative codes put the two in different divisions (a municipality of its own beside a city:
///      Dübendorf beside Zürich, Hoboken beside New York, Schiedam beside Rotterdam). Places without codes are
///      judged by population and distance alone.
///    Sections stay searchable and never name a position themselves: a section with a city (the most populous
///    place of its own within `sectionCapKm`, at least `municipalitySectionRatio` times its population, that no
///    code tells apart from it) takes part in the parts below with its own population and, when it wins, names
///    its city — so a point in a neighbourhood far from its city's centre still names the city, not a town
///    nearer by. A section without a city takes no part.
/// 2. **Cores.** Every other place owns a core: `max(coreFloorKm, coreScale·√population)` around its centre. A
///    position inside one or more cores names the nearest of those places, so a point inside a small town names
///    the town even with a big neighbour close by.
/// 3. **Reach.** Elsewhere, among places within their reach (`reachScaleKm·√population`, at most `reachCapKm`),
///    the one with the smallest distance / √population wins: a big city reaches further than a village
///    (population over distance squared).
/// 4. **Nearest.** A position beyond every place's reach (open sea, desert) names the nearest place.
///
/// Populations below `populationFloor` count as the floor (GeoNames has places with population 0).
/// The code-based sections were measured with scripts/analysis/naming-evaluation.py (five labelled sets, old rule
/// beside this one). The other parameters were chosen on the 20 labelled receiver logs and the accuracy checks in the tests. The section cap
/// is 7 km: at 6.5 km the labelled Madrid position is named by a neighbourhood, and a larger cap only sets more real
/// towns aside (at 10 km, 90.0% of points near places under 20,000 people named them; at 7 km, 91.0–91.6%, by
/// sample).
public enum PlaceNamingRule {
    public static let populationFloor = 1_000.0
    public static let sectionScaleKm = 0.017
    public static let sectionRatio = 10.0
    public static let sectionFullRatioDecades = 2.0
    public static let sectionCapKm = 7.0
    public static let municipalitySectionRatio = 5.0
    public static let sectionFeatureCode = "PPLX"
    public static let coreScaleKm = 0.01
    public static let coreFloorKm = 1.0
    public static let reachScaleKm = 0.05
    public static let reachCapKm = 50.0

    /// Reach and core in chord units are linear in weight: `scale · weight`, reach capped at `reachCapChord`,
    /// core at least `coreFloorChord`. (Chord and arc differ by under 0.01% at 50 km; these are the definitions the
    /// builder, the tree search and the scan all use.)
    static let reachScaleChord = Float(chord(km: reachScaleKm))
    static let reachCapChord = Float(chord(km: reachCapKm))
    static let coreScaleChord = Float(chord(km: coreScaleKm))
    static let coreFloorChord = Float(chord(km: coreFloorKm))

    /// The parameters in one line, recorded in the index: an index built with other parameters is stale.
    public static var signature: String {
        "floor \(populationFloor); sections \(sectionScaleKm)/\(sectionRatio)/\(sectionFullRatioDecades)/\(sectionCapKm); "
            + "codes \(sectionFeatureCode)/municipality \(municipalitySectionRatio)/told apart; "
            + "core \(coreScaleKm)/\(coreFloorKm); reach \(reachScaleKm)/\(reachCapKm)"
    }

    /// A place's reach: √population (with the floor).
    public static func weight(population: Int) -> Double {
        max(Double(population), populationFloor).squareRoot()
    }

    /// How far from a place of `parent` people a place of `child` people counts as its section, in kilometres;
    /// nil when the two are too alike in size for one to be a section of the other.
    public static func sectionRadiusKm(parent: Int, child: Int) -> Double? {
        let ratio = max(Double(parent), populationFloor) / max(Double(child), populationFloor)
        guard ratio >= sectionRatio else { return nil }
        let scale = min(1, log10(ratio) / sectionFullRatioDecades)
        return min(sectionCapKm, sectionScaleKm * weight(population: parent) * scale)
    }

    /// True when codes alone make `child` a section of `parent` (they are at most `sectionCapKm` apart): the same
    /// municipality, and the parent at least `municipalitySectionRatio` times as populous.
    static func isSectionByCodes(parent: PlaceSourceRecord, child: PlaceSourceRecord) -> Bool {
        max(Double(parent.population), populationFloor)
            >= municipalitySectionRatio * max(Double(child.population), populationFloor)
            && child.sharesMunicipality(with: parent)
    }

    /// Reach and core in chord units, as the search uses them: read from the static constants once per search,
    /// since every read of a lazily initialised static costs a check.
    struct Scales {
        var reachScale = reachScaleChord
        var reachCap = reachCapChord
        var coreScale = coreScaleChord
        var coreFloor = coreFloorChord

        @inline(__always)
        func reach(weight: Float) -> Float {
            min(reachCap, reachScale * weight)
        }

        @inline(__always)
        func core(weight: Float) -> Float {
            max(coreFloor, coreScale * weight)
        }
    }

    /// The ordering key of a candidate: smaller is better. Chords are straight-line distances between unit
    /// vectors; the tree stores them as `Float`, and the brute-force check uses this same function.
    /// Keys of the four parts: in a core, the chord (under 2); in reach, 4 + chord / weight (under 8); beyond
    /// reach, 8 + chord.
    @inline(__always)
    static func key(chord: Float, weight: Float, scales: Scales) -> Double {
        if chord <= scales.core(weight: weight) { return Double(chord) }
        if chord <= scales.reach(weight: weight) { return 4 + Double(chord) / Double(weight) }
        return 8 + Double(chord)
    }

    /// The smallest key any point of a tree node could have, given its nearest possible chord and the largest
    /// weight below it (core and reach grow with weight, so the largest weight bounds both).
    @inline(__always)
    static func bound(chord: Float, maxWeight: Float, scales: Scales) -> Double {
        key(chord: chord, weight: maxWeight, scales: scales)
    }

    /// The chord between two points on the unit sphere whose great-circle distance is `km`.
    static func chord(km: Double) -> Double {
        2 * sin(km / (Coordinate.earthRadius / 1000) / 2)
    }

    /// The unit vector of a position.
    static func unitVector(_ coordinate: Coordinate) -> SIMD3<Float> {
        let phi = coordinate.latitude * .pi / 180
        let lambda = coordinate.longitude * .pi / 180
        let cosPhi = cos(phi)
        return SIMD3(Float(cosPhi * cos(lambda)), Float(cosPhi * sin(lambda)), Float(sin(phi)))
    }
}
