import BreezeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds the city sections among places (see `PlaceNamingRule`). Used once, when the index is built.
enum SectionFinder {
    /// Per record: nil for a place of its own; for a section, the record of the city it names (the most populous
    /// place that is not a section within `sectionCapKm`, with at least `municipalitySectionRatio` times its
    /// population, that no administrative code tells apart from it), or -1 when there is none.
    static func sectionCities(of records: [PlaceSourceRecord]) -> [Int?] {
        let flags = sections(of: records)
        let grid = Grid(records)
        let floor = PlaceNamingRule.populationFloor
        return records.indices.map { child in
            guard flags[child] else { return nil }
            let record = records[child]
            let centre = Coordinate(latitude: record.latitude, longitude: record.longitude)
            var best = -1
            grid.forEach(near: record, km: PlaceNamingRule.sectionCapKm) { candidate in
                let other = records[candidate]
                guard candidate != child, !flags[candidate], !record.isToldApart(from: other),
                    max(Double(other.population), floor)
                        >= PlaceNamingRule.municipalitySectionRatio * max(Double(record.population), floor),
                    centre.distance(to: Coordinate(latitude: other.latitude, longitude: other.longitude)) / 1000
                        <= PlaceNamingRule.sectionCapKm
                else { return }
                if best < 0 || other.population > records[best].population
                    || (other.population == records[best].population && candidate < best)
                {
                    best = candidate
                }
            }
            return best
        }
    }

    /// Records in cells of 0.1°, to find the records near one.
    struct Grid {
        static let cellDegrees = 0.1
        var cells: [SIMD2<Int32>: [Int]] = [:]

        init(_ records: [PlaceSourceRecord]) {
            for (index, record) in records.enumerated() {
                cells[Self.cell(record.latitude, record.longitude), default: []].append(index)
            }
        }

        static func cell(_ latitude: Double, _ longitude: Double) -> SIMD2<Int32> {
            SIMD2(Int32((latitude / cellDegrees).rounded(.down)), Int32((longitude / cellDegrees).rounded(.down)))
        }

        /// Calls `body` with every record in the cells within `km` of `record` (and some a little further).
        func forEach(near record: PlaceSourceRecord, km: Double, _ body: (Int) -> Void) {
            let latitudeSpan = km / 111.0
            let cosine = max(0.01, cos(record.latitude * .pi / 180))
            let longitudeSpan = min(180, km / (111.0 * cosine))
            let low = Self.cell(record.latitude - latitudeSpan, record.longitude - longitudeSpan)
            let high = Self.cell(record.latitude + latitudeSpan, record.longitude + longitudeSpan)
            for row in low.x...high.x {
                for column in low.y...high.y {
                    // Longitude cells wrap at the antimeridian.
                    let wrapped = Int32((Int(column) + 1800 + 3600) % 3600 - 1800)
                    for index in cells[SIMD2(row, wrapped)] ?? [] { body(index) }
                }
            }
        }
    }

    /// A flag per record: true for a section.
    static func sections(of records: [PlaceSourceRecord]) -> [Bool] {
        var flags = records.map { $0.featureCode == PlaceNamingRule.sectionFeatureCode }
        let cellDegrees = 0.1
        func cell(_ latitude: Double, _ longitude: Double) -> SIMD2<Int32> {
            SIMD2(Int32((latitude / cellDegrees).rounded(.down)), Int32((longitude / cellDegrees).rounded(.down)))
        }
        var grid: [SIMD2<Int32>: [Int]] = [:]
        for (index, record) in records.enumerated() {
            grid[cell(record.latitude, record.longitude), default: []].append(index)
        }

        let smallestParent = Int(
            min(PlaceNamingRule.sectionRatio, PlaceNamingRule.municipalitySectionRatio)
                * PlaceNamingRule.populationFloor)
        let reachKm = PlaceNamingRule.sectionCapKm
        for (parentIndex, parent) in records.enumerated() where parent.population >= smallestParent {
            let centre = Coordinate(latitude: parent.latitude, longitude: parent.longitude)
            let latitudeSpan = reachKm / 111.0
            let cosine = max(0.01, cos(parent.latitude * .pi / 180))
            let longitudeSpan = min(180, reachKm / (111.0 * cosine))
            let low = cell(parent.latitude - latitudeSpan, parent.longitude - longitudeSpan)
            let high = cell(parent.latitude + latitudeSpan, parent.longitude + longitudeSpan)
            for row in low.x...high.x {
                for column in low.y...high.y {
                    // Longitude cells wrap at the antimeridian.
                    let wrapped = Int32((Int(column) + 1800 + 3600) % 3600 - 1800)
                    for child in grid[SIMD2(row, wrapped)] ?? [] where child != parentIndex && !flags[child] {
                        let record = records[child]
                        let distance =
                            centre.distance(
                                to: Coordinate(latitude: record.latitude, longitude: record.longitude)) / 1000
                        if distance > reachKm { continue }
                        if PlaceNamingRule.isSectionByCodes(parent: parent, child: record) {
                            flags[child] = true
                            continue
                        }
                        guard
                            let radius = PlaceNamingRule.sectionRadiusKm(
                                parent: parent.population, child: record.population)
                        else { continue }
                        if distance <= radius && !record.isToldApart(from: parent) { flags[child] = true }
                    }
                }
            }
        }
        return flags
    }
}
