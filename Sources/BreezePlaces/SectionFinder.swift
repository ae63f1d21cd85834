import BreezeCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the city sections among places (see `PlaceNamingRule`): places within a much bigger place's section
/// radius. Used once, when the index is built.
enum SectionFinder {
    /// A flag per record: true for a section.
    static func sections(of records: [PlaceSourceRecord]) -> [Bool] {
        var flags = [Bool](repeating: false, count: records.count)
        let cellDegrees = 0.1
        func cell(_ latitude: Double, _ longitude: Double) -> SIMD2<Int32> {
            SIMD2(Int32((latitude / cellDegrees).rounded(.down)), Int32((longitude / cellDegrees).rounded(.down)))
        }
        var grid: [SIMD2<Int32>: [Int]] = [:]
        for (index, record) in records.enumerated() {
            grid[cell(record.latitude, record.longitude), default: []].append(index)
        }

        let smallestParent = Int(PlaceNamingRule.sectionRatio * PlaceNamingRule.populationFloor)
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
                        guard let radius = PlaceNamingRule.sectionRadiusKm(
                            parent: parent.population, child: record.population)
                        else { continue }
                        let distance = centre.distance(
                            to: Coordinate(latitude: record.latitude, longitude: record.longitude)) / 1000
                        if distance <= radius { flags[child] = true }
                    }
                }
            }
        }
        return flags
    }
}
