/// Ranks, for every prefix that many search keys share, its best matches, so that short queries ("pa", "san")
/// need not score thousands of names. Used when the index is built, and when an index is ranked again.
struct PrefixRanker {
    struct RankedPrefix {
        var text: [UInt8]
        var first: Int
        var count: Int
    }

    /// The search keys' folded bytes, sorted as in `KEYS`.
    let keyBytes: [[UInt8]]
    /// The search keys' references, as in `KEYS`.
    let keyReferences: [UInt32]
    let populations: [Int]
    /// Per place: the city a section names, nil for a place of its own or a section without a city.
    let sectionCities: [Int?]
    /// Places at or past this number are sections without a city (`PlacesIndex.isSectionWithoutCity`).
    let placesInTree: Int
    /// Per place: its own name, folded.
    let ownNames: [[UInt8]]

    /// The ranked prefixes, sorted, and the keys they rank, as positions in `KEYS`.
    func rank() -> (prefixes: [RankedPrefix], keys: [UInt32]) {
        var prefixes: [RankedPrefix] = []
        var ranked: [UInt32] = []
        visit(0, keyBytes.count, depth: 0, prefixes: &prefixes, ranked: &ranked)
        prefixes.sort { $0.text.lexicographicallyPrecedes($1.text) }
        return (prefixes, ranked)
    }

    /// keys[low..<high] share their first `depth` bytes.
    private func visit(_ low: Int, _ high: Int, depth: Int, prefixes: inout [RankedPrefix], ranked: inout [UInt32]) {
        guard high - low > CitySearch.rankedPrefixThreshold else { return }
        if depth >= 2 {
            let text = Array(keyBytes[low].prefix(depth))
            let best = best(low, high, prefix: text)
            prefixes.append(RankedPrefix(text: text, first: ranked.count, count: best.count))
            ranked.append(contentsOf: best)
        }
        // Keys equal to the prefix sort first; the rest split by their next byte.
        var start = low
        while start < high && keyBytes[start].count <= depth { start += 1 }
        while start < high {
            let byte = keyBytes[start][depth]
            var end = start + 1
            while end < high && keyBytes[end][depth] == byte { end += 1 }
            visit(start, end, depth: depth + 1, prefixes: &prefixes, ranked: &ranked)
            start = end
        }
    }

    /// The keys of the best `rankedPrefixDepth` places among keys[low..<high], one key a place, ranked as
    /// `CitySearch` ranks a match (`CitySearch.rankScore`): a section counts as its city, matched by its own name
    /// when the city's own name starts with `prefix` too, else as by another name; a section without a city as a
    /// match by another name. Of a place's keys that rank alike, the first.
    private func best(_ low: Int, _ high: Int, prefix: [UInt8]) -> [UInt32] {
        var best: [Int: (score: Double, key: Int)] = [:]
        for key in low..<high {
            var place = Int(keyReferences[key] & ~PlacesIndexFormat.alternateFlag)
            var alternate = keyReferences[key] & PlacesIndexFormat.alternateFlag != 0
            if let city = sectionCities[place] {
                // A section whose city's own name starts with the prefix too is its city matched by its own name:
                // the city's own key, in this range as well, ranks it, and the search need not fold a name for it.
                if ownNames[city].starts(with: prefix) { continue }
                alternate = true
                place = city
            }
            let score = CitySearch.rankScore(
                population: populations[place], firstTier: !alternate && place < placesInTree)
            if let current = best[place], current.score >= score { continue }
            best[place] = (score, key)
        }
        return best.sorted { $0.value.score != $1.value.score ? $0.value.score > $1.value.score : $0.key < $1.key }
            .prefix(CitySearch.rankedPrefixDepth).map { UInt32($0.value.key) }
    }
}
