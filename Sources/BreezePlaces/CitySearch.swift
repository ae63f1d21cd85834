import BreezeCore

/// A city found by a search.
public struct CityMatch: Hashable, Sendable {
    public var place: Place
    /// The place's position in its index.
    public var index: Int
    /// True when the query matched one of the place's alternate names rather than its own.
    public var matchedAlternateName: Bool
}

/// Offline city search: case- and diacritic-insensitive prefix search over names, ranked as a person expects.
///
/// Ranking is population weighted by how the name matched: the place's own name counts fully (twice when the
/// query is the whole name), an alternate name counts a half when the query is the whole name and a tenth when it
/// is only a prefix. GeoNames carries names in every language, so alternate names must not outrank a real match:
/// "par" finds Paris, yet "münchen" still finds Munich (alternate, whole) above Münchenbuchsee (own, prefix).
///
/// A comma narrows by region or country: "Portland, Maine", "Portland, ME", "Paris, France", "London, UK".
public struct CitySearch: Sendable {
    /// Queries shorter than this (in letters, after folding) find nothing.
    public static let minimumQueryLength = 2
    /// Prefixes matching more names than this have their best matches ranked when the index is built.
    static let rankedPrefixThreshold = 64
    /// How many matches a ranked prefix keeps.
    static let rankedPrefixDepth = 24

    public let index: PlacesIndex

    public init(index: PlacesIndex) {
        self.index = index
    }

    /// Country words people use that are neither the ISO code nor a prefix of GeoNames' English name.
    private static let countryAliases: [String: String] = [
        "uk": "GB", "britain": "GB", "great britain": "GB", "england": "GB", "scotland": "GB", "wales": "GB",
        "usa": "US", "america": "US", "united states of america": "US", "holland": "NL", "uae": "AE",
    ]

    /// Cities matching `query`, best first; an empty list when nothing matches or the query is too short.
    public func search(_ query: String, limit: Int = 10) -> [CityMatch] {
        guard limit > 0 else { return [] }
        let parts = query.split(separator: ",", omittingEmptySubsequences: false)
        let name = Array(SearchKey.fold(parts.first ?? "").utf8)
        guard String(decoding: name, as: UTF8.self).filter({ $0 != " " }).count >= Self.minimumQueryLength
        else { return [] }
        let filters = parts.dropFirst().map { SearchKey.fold($0) }.filter { !$0.isEmpty }

        let range = keyRange(prefix: name)
        guard !range.isEmpty else { return [] }

        var scores: [UInt32: (score: Double, alternate: Bool)] = [:]
        func consider(_ reference: UInt32, exact: Bool) {
            let alternate = reference & PlacesIndexFormat.alternateFlag != 0
            let place = reference & ~PlacesIndexFormat.alternateFlag
            guard Int(place) < index.count else { return }
            let weight: Double = switch (alternate, exact) {
            case (false, true): 2
            case (false, false): 1
            case (true, true): 0.5
            case (true, false): 0.1
            }
            let score = max(Double(index.population(ofPlace: Int(place))), 1) * weight
            if let current = scores[place], current.score >= score { return }
            scores[place] = (score, alternate)
        }

        if filters.isEmpty, limit <= Self.rankedPrefixDepth, let ranked = rankedMatches(prefix: name) {
            // Whole-name matches can outrank the prefix ranking, and sort first in the key range.
            for key in range {
                guard keyLength(key) == name.count else { break }
                consider(reference(key), exact: true)
            }
            for slot in ranked { consider(index.u32(index.ranked.offset + slot * 4), exact: false) }
        } else {
            for key in range { consider(reference(key), exact: keyLength(key) == name.count) }
        }

        var results = scores.map { (place: $0.key, score: $0.value.score, alternate: $0.value.alternate) }
        if !filters.isEmpty {
            results = results.filter { matches(place: Int($0.place), filters: filters) }
        }
        results.sort { $0.score != $1.score ? $0.score > $1.score : $0.place < $1.place }
        return results.prefix(limit).compactMap { result in
            index.place(at: Int(result.place)).map {
                CityMatch(place: $0, index: Int(result.place), matchedAlternateName: result.alternate)
            }
        }
    }

    // MARK: - Keys

    private func reference(_ key: Int) -> UInt32 {
        index.u32(index.keys.offset + key * PlacesIndexFormat.keySize + 4)
    }

    private func keyBytes(_ key: Int) -> UnsafeRawBufferPointer {
        index.stringBytes(at: index.u32(index.keys.offset + key * PlacesIndexFormat.keySize))
            ?? UnsafeRawBufferPointer(start: nil, count: 0)
    }

    private func keyLength(_ key: Int) -> Int {
        keyBytes(key).count
    }

    /// The keys that start with `prefix`: two binary searches over the sorted keys.
    func keyRange(prefix: [UInt8]) -> Range<Int> {
        let count = index.keys.count
        let lower = partitionPoint(count) { Self.compare(keyBytes($0), prefix, prefixOnly: false) < 0 }
        let upper = partitionPoint(count) { Self.compare(keyBytes($0), prefix, prefixOnly: true) <= 0 }
        return lower..<max(lower, upper)
    }

    /// The precomputed ranking for `prefix`, as slots in `RANK`, when the index has one.
    private func rankedMatches(prefix: [UInt8]) -> Range<Int>? {
        let table = index.prefixes
        let found = partitionPoint(table.count) {
            let bytes = index.stringBytes(at: index.u32(table.offset + $0 * PlacesIndexFormat.prefixSize))
                ?? UnsafeRawBufferPointer(start: nil, count: 0)
            return Self.compare(bytes, prefix, prefixOnly: false) < 0
        }
        guard found < table.count else { return nil }
        let at = table.offset + found * PlacesIndexFormat.prefixSize
        guard let bytes = index.stringBytes(at: index.u32(at)), Self.compare(bytes, prefix, prefixOnly: false) == 0
        else { return nil }
        let first = Int(index.u32(at + 4))
        let count = Int(index.u32(at + 8))
        guard first + count <= index.ranked.count else { return nil }
        return first..<(first + count)
    }

    /// The first position in 0..<count where `isBelow` turns false (it must be true, then false).
    private func partitionPoint(_ count: Int, _ isBelow: (Int) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if isBelow(middle) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Byte-wise comparison of `key` with `query`; with `prefixOnly`, only the key's first `query.count` bytes count.
    static func compare(_ key: UnsafeRawBufferPointer, _ query: [UInt8], prefixOnly: Bool) -> Int {
        let length = prefixOnly ? min(key.count, query.count) : key.count
        let shared = min(length, query.count)
        for i in 0..<shared where key[i] != query[i] {
            return key[i] < query[i] ? -1 : 1
        }
        if prefixOnly && key.count >= query.count { return 0 }
        return length == query.count ? 0 : (length < query.count ? -1 : 1)
    }

    // MARK: - Filters

    private func matches(place: Int, filters: [String]) -> Bool {
        let country = index.country(at: index.countryIndex(ofPlace: place))
        let countryName = SearchKey.fold(country.name)
        var admin1Code = ""
        var admin1Name = ""
        if let admin1 = index.admin1Index(ofPlace: place) {
            let strings = index.admin1Strings(at: admin1)
            admin1Code = SearchKey.fold(index.string(at: strings.code) ?? "")
            admin1Name = SearchKey.fold(index.string(at: strings.name) ?? "")
        }
        let code = country.code.lowercased()
        return filters.allSatisfy { filter in
            filter == code || Self.countryAliases[filter] == country.code || countryName.hasPrefix(filter)
                || (!admin1Name.isEmpty && admin1Name.hasPrefix(filter))
                || (!admin1Code.isEmpty && filter.count >= 2 && admin1Code == filter)
        }
    }
}
