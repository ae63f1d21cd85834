/// Ranks, for every prefix that many search keys share, its best matches, so that short queries ("pa", "san")
/// need not score thousands of names. Used once, when the index is built.
struct PrefixRanker {
    struct RankedPrefix {
        var text: [UInt8]
        var first: Int
        var count: Int
    }

    let keys: [PlacesIndexBuilder.SearchKeyEntry]
    let populations: [Int]
    /// Per place: the city a section names, nil for a place of its own.
    let sectionCities: [Int?]
    /// Per place: its own name, folded.
    let ownNames: [[UInt8]]

    func rank() -> (prefixes: [RankedPrefix], references: [UInt32]) {
        var prefixes: [RankedPrefix] = []
        var references: [UInt32] = []
        visit(0, keys.count, depth: 0, prefixes: &prefixes, references: &references)
        prefixes.sort { $0.text.lexicographicallyPrecedes($1.text) }
        return (prefixes, references)
    }

    /// keys[low..<high] share their first `depth` bytes.
    private func visit(
        _ low: Int, _ high: Int, depth: Int, prefixes: inout [RankedPrefix], references: inout [UInt32]
    ) {
        guard high - low > CitySearch.rankedPrefixThreshold else { return }
        if depth >= 2 {
            let best = ranked(low, high, prefix: Array(keys[low].bytes.prefix(depth)))
            prefixes.append(
                RankedPrefix(
                    text: Array(keys[low].bytes.prefix(depth)), first: references.count,
                    count: best.count))
            references.append(contentsOf: best)
        }
        // Keys equal to the prefix sort first; the rest split by their next byte.
        var start = low
        while start < high && keys[start].bytes.count <= depth { start += 1 }
        while start < high {
            let byte = keys[start].bytes[depth]
            var end = start + 1
            while end < high && keys[end].bytes[depth] == byte { end += 1 }
            visit(start, end, depth: depth + 1, prefixes: &prefixes, references: &references)
            start = end
        }
    }

    /// The best `rankedPrefixDepth` places among keys[low..<high], scored as `CitySearch` scores a prefix match,
    /// a section whose city's own name starts with `prefix` counted as the city (see `CitySearch.search`).
    private func ranked(_ low: Int, _ high: Int, prefix: [UInt8]) -> [UInt32] {
        var best: [UInt32: (score: Double, reference: UInt32)] = [:]
        for key in keys[low..<high] {
            var reference = key.reference
            if let city = sectionCities[Int(reference & ~PlacesIndexFormat.alternateFlag)],
                ownNames[city].starts(with: prefix)
            {
                reference = UInt32(city)
            }
            let alternate = reference & PlacesIndexFormat.alternateFlag != 0
            let place = reference & ~PlacesIndexFormat.alternateFlag
            let score = max(Double(populations[Int(place)]), 1) * (alternate ? 0.1 : 1)
            if let current = best[place], current.score >= score { continue }
            best[place] = (score, reference)
        }
        return best.sorted { $0.value.score != $1.value.score ? $0.value.score > $1.value.score : $0.key < $1.key }
            .prefix(CitySearch.rankedPrefixDepth).map(\.value.reference)
    }
}
