import BreezeCore

/// A city found by a search.
public struct CityMatch: Hashable, Sendable {
    public var place: Place
    /// The place's position in its index.
    public var index: Int
    /// True when the query matched another name of the place than its own: an alternate name, or a section of it.
    public var matchedAlternateName: Bool
    /// That other name, when `matchedAlternateName`: an alternate name as the index keeps it, folded, each word
    /// capitalised ("Beroea" for Aleppo), or the name of the section matched ("Montmartre" for Paris).
    public var matchedName: String?
}

/// Offline city search: case- and diacritic-insensitive prefix search over names, ranked as a person expects.
///
/// Ranking: the places whose own name starts with the query first, most populous first; then those that matched
/// by another name (an alternate name, in any language, or the name of a section of theirs), most populous first,
/// each with the name that matched. GeoNames carries many names for a city, some of them odd, so a place's own
/// name always wins: "par" finds Paris, "bern" Bern, and "münchen" Münchenbuchsee, then Munich (as "München").
/// A section of a city is shown as its city, never itself; a section without a city to name ranks after the
/// places of their own, as itself.
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

    /// Queries of at least this many letters (after folding) that find nothing as typed find names one typing slip
    /// away instead.
    public static let typoMinimumLength = 5

    /// Cities matching `query`, best first; an empty list when nothing matches or the query is too short.
    ///
    /// A city section is shown as its city, once ("zur": one Zürich, not Zürich and its nine districts): matched by
    /// its own name when the city's own name starts with the query too, else by the section's name. A section
    /// without a city ranks after every place of its own matched by its own name ("spandau" finds Spandau, a
    /// section of Berlin too far from its centre to name it, as itself; "zur" has it after ten places).
    /// A query of `typoMinimumLength` letters or more (in Latin letters) that finds nothing as typed finds the names
    /// one slip away instead: a letter left out, doubled or added, changed, or two letters swapped ("zurrich",
    /// "barcelna"). Only then: a query that finds something keeps its answer and its cost.
    public func search(_ query: String, limit: Int = 10) -> [CityMatch] {
        ranked(query, limit: limit).compactMap { entry in
            index.place(at: Int(entry.place)).map {
                CityMatch(
                    place: $0, index: Int(entry.place), matchedAlternateName: entry.alternate,
                    matchedName: entry.alternate ? matchedName(entry) : nil)
            }
        }
    }

    /// How a match ranks: the first tier (a place of its own matched by its own name) above the rest (another
    /// name, or a section without a city), then the population. Every score is at or above zero.
    static func rankScore(population: Int, firstTier: Bool) -> Double {
        Double(max(population, 0)) + (firstTier ? firstTierScore : 0)
    }

    /// More than any population (a u32 in the index): what the first tier adds to a score.
    private static let firstTierScore = 0x1_0000_0000 as Double

    /// The name an entry that did not match by its own name matched, as `CityMatch.matchedName` shows it.
    private func matchedName(_ entry: PlaceScores.Entry) -> String? {
        if entry.section { return index.name(ofPlace: Int(entry.key)) }
        guard
            let folded = index.stringBytes(
                at: index.u32(index.keys.offset + Int(entry.key) * PlacesIndexFormat.keySize))
        else { return nil }
        return Self.capitalised(folded)
    }

    /// A folded name with the first letter of each word in capitals: "beroea" is "Beroea", "москва" "Москва".
    static func capitalised(_ folded: UnsafeRawBufferPointer) -> String {
        // Most names are ASCII: their letters are raised in place, and only a word that starts otherwise is
        // decoded for its first character.
        var bytes = Array(folded)
        var wordStarts: [Int] = []
        for at in bytes.indices where at == 0 || bytes[at - 1] == 0x20 {
            if (0x61...0x7A).contains(bytes[at]) {
                bytes[at] -= 0x20
            } else if bytes[at] >= 0x80 {
                wordStarts.append(at)
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard !wordStarts.isEmpty else { return text }
        return text.split(separator: " ", omittingEmptySubsequences: false).map { word in
            word.prefix(1).uppercased() + word.dropFirst()
        }.joined(separator: " ")
    }

    /// What `search` finds, best first.
    private func ranked(_ query: String, limit: Int) -> [PlaceScores.Entry] {
        guard limit > 0 else { return [] }
        // Most queries have no comma: they are taken whole, without splitting.
        let parts =
            query.utf8.contains(UInt8(ascii: ","))
            ? query.split(separator: ",", omittingEmptySubsequences: false) : [query[...]]
        let name = SearchKey.foldedBytes(parts.first ?? "")
        let letters = name.lazy.filter { $0 != 0x20 }.count
        let isASCII = name.allSatisfy { $0 < 0x80 }
        // In ASCII each letter is a character; other text is counted in characters.
        guard
            isASCII
                ? letters >= Self.minimumQueryLength
                : String(decoding: name, as: UTF8.self).filter({ $0 != " " }).count >= Self.minimumQueryLength
        else { return [] }
        let filters = parts.dropFirst().map { SearchKey.fold($0) }.filter { !$0.isEmpty }

        var scores = PlaceScores()
        collect(prefix: name, filtered: !filters.isEmpty, limit: limit, into: &scores)
        if letters >= Self.typoMinimumLength, isASCII,
            !scores.contains(where: { filters.isEmpty || matches(place: Int($0), filters: filters) })
        {
            collectSlips(of: name, filtered: !filters.isEmpty, limit: limit, into: &scores)
        }

        // Each match as one number that sorts as the ranking does, highest score first and then the lowest place:
        // the score's bits inverted (a Double at or above zero orders as its bits do), then the place. Comparing
        // these costs a fraction of comparing tuples.
        var ranking: [UInt128] = []
        ranking.reserveCapacity(scores.count)
        for entry in scores where filters.isEmpty || matches(place: Int(entry.place), filters: filters) {
            ranking.append(UInt128(~entry.score.bitPattern) << 64 | UInt128(entry.place))
        }
        ranking.sort()
        return ranking.prefix(limit).compactMap { scores.entry(for: UInt32(truncatingIfNeeded: $0)) }
    }

    /// Scores the places whose names start with `prefix`.
    private func collect(
        prefix name: [UInt8], range: Range<Int>? = nil, filtered: Bool, limit: Int, into scores: inout PlaceScores
    ) {
        let range = range ?? keyRange(prefix: name)
        guard !range.isEmpty else { return }
        if !filtered, limit <= Self.rankedPrefixDepth, let ranked = rankedMatches(prefix: name) {
            // The index ranked this prefix's best keys, as `score` ranks them, when it was built.
            for slot in ranked {
                let key = Int(index.u32(index.ranked.offset + slot * 4))
                guard key < index.keys.count else { continue }
                score(key: key, prefix: name, into: &scores)
            }
        } else {
            for key in range { score(key: key, prefix: name, into: &scores) }
        }
    }

    /// Scores the place of one key, matched by `prefix`.
    private func score(key: Int, prefix: [UInt8], into scores: inout PlaceScores) {
        let reference = reference(key)
        var place = Int(reference & ~PlacesIndexFormat.alternateFlag)
        var alternate = reference & PlacesIndexFormat.alternateFlag != 0
        guard place < index.count else { return }
        var matched = UInt32(key)
        var section = false
        if let city = index.sectionCity(ofPlace: place) {
            // Matched by the section's own name, that name is shown; by an alternate name of it, that one.
            if !cityName(of: city, startsWith: prefix) {
                section = !alternate
                if section { matched = UInt32(place) }
                alternate = true
            } else {
                alternate = false
            }
            place = city
        }
        scores.add(
            PlaceScores.Entry(
                place: UInt32(place),
                score: Self.rankScore(
                    population: Int(index.population(ofPlace: place)),
                    firstTier: !alternate && !index.isSectionWithoutCity(place)),
                alternate: alternate, key: matched, section: section))
    }

    /// Whether the own name of `city` (a section's city) starts with `prefix`.
    func cityName(of city: Int, startsWith prefix: [UInt8]) -> Bool {
        guard let first = prefix.first else { return true }
        // Folding a name costs far more than the search around it: a city whose name starts with another ASCII
        // letter or digit (as it folds: lower case) is told apart first.
        if let raw = index.stringBytes(at: index.nameReference(ofPlace: city)), let head = raw.first,
            (0x30...0x39).contains(head) || (0x41...0x5A).contains(head) || (0x61...0x7A).contains(head),
            head | 0x20 != first
        {
            return false
        }
        return SearchKey.foldedBytes(index.name(ofPlace: city)).starts(with: prefix)
    }

    /// Scores the places named one typing slip away from `name` (folded ASCII): a letter left out, two neighbours
    /// swapped, a letter changed or added (a–z or a space). The first letter is taken as typed, unless it is the one
    /// left out or swapped: that keeps the slips few, and each is searched only among the keys that share what
    /// comes before it, so that the whole costs about as much as a few dozen searches.
    private func collectSlips(of name: [UInt8], filtered: Bool, limit: Int, into scores: inout PlaceScores) {
        let keys = KeyTable(index)
        let filter = index.keyPrefixFilter
        var runs: [(start: Int, byte: Int)] = []
        runs.reserveCapacity(64)
        var variant: [UInt8] = []
        variant.reserveCapacity(name.count + 1)
        // The keys that start with name[..<at], narrowed as `at` grows: every variant below keeps those letters.
        var shared = 0..<index.keys.count
        // Every key in `shared` starts with variant[..<known]: comparisons start after those bytes.
        var known = 0
        func tryVariant(_ scores: inout PlaceScores) {
            guard variant.count >= Self.minimumQueryLength,
                variant.withUnsafeBytes({ filter.mayStart($0) })
            else { return }
            let range = prefixRange(variant, within: shared, from: known, of: keys)
            guard !range.isEmpty else { return }
            collect(prefix: variant, range: range, filtered: filtered, limit: limit, into: &scores)
        }
        // `letter` at `at`: in place of the name's letter there (a changed letter), then before it (an added one).
        func tryLetter(_ letter: UInt8, at: Int, _ scores: inout PlaceScores) {
            variant.removeAll(keepingCapacity: true)
            variant += name[..<at]
            variant.append(letter)
            if at < name.count, letter != name[at] {
                variant += name[(at + 1)...]
                tryVariant(&scores)
                variant.removeLast(name.count - at - 1)
            }
            variant += name[at...]
            tryVariant(&scores)
        }
        for at in 0...name.count {
            if at > 0 {
                variant.removeAll(keepingCapacity: true)
                variant += name[..<at]
                shared = prefixRange(variant, within: shared, from: at - 1, of: keys)
                if shared.isEmpty { return }
                if shared.count <= Self.slipScanLimit {
                    // Few keys left: each is checked for one slip from here on, cheaper than searching for slips.
                    for key in shared {
                        let bytes = keys.bytes(key)
                        guard let length = Self.slipPrefixLength(of: name, in: bytes, from: at) else { continue }
                        score(key: key, prefix: Array(bytes[..<length]), into: &scores)
                    }
                    return
                }
            }
            known = at
            if at < name.count {
                variant.removeAll(keepingCapacity: true)
                variant += name[..<at]
                variant += name[(at + 1)...]
                tryVariant(&scores)
                if at + 1 < name.count, name[at] != name[at + 1] {
                    variant.removeAll(keepingCapacity: true)
                    variant += name[..<at]
                    variant.append(name[at + 1])
                    variant.append(name[at])
                    variant += name[(at + 2)...]
                    tryVariant(&scores)
                }
            }
            guard at > 0 else { continue }
            if at < KeyPrefixFilter.length {
                // Near the start the groups are large and finding them costs more than the filter, which knows the
                // letter at `at`: each slip letter is tried in turn (in key order, as the groups would be), and its
                // variants are searched among all of `shared` only when the filter lets them.
                for letter in Self.slipLetters { tryLetter(letter, at: at, &scores) }
                continue
            }
            // A changed or added letter: the keys that follow name[..<at] with that letter next, taken group by group
            // as they lie in key order (only the letters some key has there), then the rest of the name in them.
            // Keys that are name[..<at] itself sort first and have no letter there. Where each group begins is found
            // by halving the range wherever its ends differ there: a few reads a group, not a walk from the last one.
            let first = galloping(from: shared.lowerBound, to: shared.upperBound) { keys.bytes($0).count <= at }
            guard first < shared.upperBound else { continue }
            let last = shared.upperBound - 1
            runs.removeAll(keepingCapacity: true)
            runs.append((first, keys.code(at, ofKey: first)))
            splitRuns(first, last, runs[0].byte, keys.code(at, ofKey: last), at: at, keys: keys, into: &runs)
            for run in runs.indices {
                let start = runs[run].start
                let end = run + 1 < runs.count ? runs[run + 1].start : shared.upperBound
                guard (0...255).contains(runs[run].byte), Self.isSlipLetter(UInt8(runs[run].byte)) else { continue }
                let letter = UInt8(runs[run].byte)
                let saved = shared
                shared = start..<end
                known = at + 1
                tryLetter(letter, at: at, &scores)
                shared = saved
            }
        }
    }

    /// Appends where each run of keys with one byte at `at` begins in keys[low...high], past `low`, with that byte
    /// (as `KeyTable.code`); `lowByte` and `highByte` are keys `low`'s and `high`'s.
    private func splitRuns(
        _ low: Int, _ high: Int, _ lowByte: Int, _ highByte: Int, at: Int, keys: KeyTable,
        into runs: inout [(start: Int, byte: Int)]
    ) {
        guard lowByte != highByte else { return }
        guard high - low > 1 else {
            runs.append((high, highByte))
            return
        }
        let middle = (low + high) / 2
        let middleByte = keys.code(at, ofKey: middle)
        splitRuns(low, middle, lowByte, middleByte, at: at, keys: keys, into: &runs)
        splitRuns(middle, high, middleByte, highByte, at: at, keys: keys, into: &runs)
    }

    /// At most this many keys sharing the start of a query are checked one by one for a slip rather than searched.
    static let slipScanLimit = 64

    /// When `name` is one slip (as `collectSlips` counts them, at `from` or later) from the first bytes of `key`,
    /// which starts with name[..<from]: how many bytes of `key` the slipped name covers; else nil. A name that
    /// `key` starts with as typed is not a slip.
    static func slipPrefixLength(of name: [UInt8], in key: UnsafeRawBufferPointer, from: Int) -> Int? {
        var at = from
        while at < name.count, at < key.count, name[at] == key[at] { at += 1 }
        guard at < name.count else { return nil }
        func rest(_ nameFrom: Int, _ keyFrom: Int) -> Bool {
            let count = name.count - nameFrom
            guard keyFrom + count <= key.count else { return false }
            for offset in 0..<count where name[nameFrom + offset] != key[keyFrom + offset] { return false }
            return true
        }
        let letter = at < key.count && isSlipLetter(key[at])
        // A letter changed, left out of the name (the key has one more), typed extra, or two swapped.
        if letter, rest(at + 1, at + 1) { return name.count }
        if letter, rest(at, at + 1) { return name.count + 1 }
        if name.count - 1 >= minimumQueryLength, rest(at + 1, at) { return name.count - 1 }
        if at + 1 < name.count, at + 1 < key.count, name[at] != name[at + 1], key[at] == name[at + 1],
            key[at + 1] == name[at], rest(at + 2, at + 2)
        {
            return name.count
        }
        return nil
    }

    /// The letters a slip may change or add.
    private static let slipLetters: [UInt8] = [0x20] + Array(0x61...0x7A)

    /// Whether a slip may change or add `byte` (one of `slipLetters`).
    @inline(__always) private static func isSlipLetter(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x61...0x7A).contains(byte)
    }

    // MARK: - Keys

    func reference(_ key: Int) -> UInt32 {
        index.u32(index.keys.offset + key * PlacesIndexFormat.keySize + 4)
    }

    func keyLength(_ key: Int) -> Int {
        KeyTable(index).bytes(key).count
    }

    /// The keys that start with `prefix`: two binary searches over the sorted keys.
    func keyRange(prefix: [UInt8]) -> Range<Int> {
        prefixRange(prefix, within: 0..<index.keys.count, from: 0, of: KeyTable(index))
    }

    /// The keys in `range` of `keys` that start with `prefix`, which must all lie in it; every key in `range` starts
    /// with prefix[..<from], so only the bytes after those are compared. The slip search runs hundreds of these: keys
    /// are read straight from the table, bytes compared without copies. The first key is found by halving; the keys
    /// past it from it outwards, as a prefix this long holds few keys.
    private func prefixRange(_ prefix: [UInt8], within range: Range<Int>, from: Int, of keys: KeyTable) -> Range<Int> {
        prefix.withUnsafeBytes { prefix in
            let lower = partitionPoint(range) { Self.order(keys.bytes($0), prefix, prefixOnly: false, from: from) < 0 }
            guard lower < range.upperBound, Self.order(keys.bytes(lower), prefix, prefixOnly: true, from: from) == 0
            else { return lower..<lower }
            let upper = galloping(from: lower + 1, to: range.upperBound) {
                Self.order(keys.bytes($0), prefix, prefixOnly: true, from: from) <= 0
            }
            return lower..<max(lower, upper)
        }
    }

    /// `compare` with the query as raw bytes (no copy, no retain: the slip search runs it thousands of times).
    @inline(__always) private static func order(
        _ key: UnsafeRawBufferPointer, _ query: UnsafeRawBufferPointer, prefixOnly: Bool, from: Int
    ) -> Int {
        let length = prefixOnly ? min(key.count, query.count) : key.count
        let shared = min(length, query.count)
        var at = min(from, shared)
        while at < shared {
            let (mine, theirs) = (key[at], query[at])
            if mine != theirs { return mine < theirs ? -1 : 1 }
            at += 1
        }
        if prefixOnly && key.count >= query.count { return 0 }
        return length == query.count ? 0 : (length < query.count ? -1 : 1)
    }

    /// The first position in `start..<end` where `isBelow` turns false (it must be true, then false), searched
    /// from `start` in steps that double, then by halves: cheap when that position is near `start`.
    private func galloping(from start: Int, to end: Int, _ isBelow: (Int) -> Bool) -> Int {
        var low = start
        var step = 1
        while low < end, isBelow(low) {
            let next = low + step
            guard next < end, isBelow(next) else {
                return partitionPoint((low + 1)..<min(next, end), isBelow)
            }
            low = next + 1
            step *= 2
        }
        return low
    }

    /// The precomputed ranking for `prefix`, as slots in `RANK`, when the index has one.
    private func rankedMatches(prefix: [UInt8]) -> Range<Int>? {
        let table = index.prefixes
        let found = partitionPoint(0..<table.count) {
            let bytes =
                index.stringBytes(at: index.u32(table.offset + $0 * PlacesIndexFormat.prefixSize))
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

    /// The first position in `range` where `isBelow` turns false (it must be true, then false).
    private func partitionPoint(_ range: Range<Int>, _ isBelow: (Int) -> Bool) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            if isBelow(middle) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Byte-wise comparison of `key` with `query`; with `prefixOnly`, only the key's first `query.count` bytes count.
    /// The first `from` bytes of both must be known equal: they are not compared again.
    static func compare(_ key: UnsafeRawBufferPointer, _ query: [UInt8], prefixOnly: Bool, from: Int = 0) -> Int {
        query.withUnsafeBytes { order(key, $0, prefixOnly: prefixOnly, from: from) }
    }

    // MARK: - Filters

    func matches(place: Int, filters: [String]) -> Bool {
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
