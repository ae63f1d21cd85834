import BreezeCore

/// Writes a places index from a list of places: the build step behind `scripts/build-places-index`, and the
/// way tests make small indexes of their own.
public struct PlacesIndexBuilder: Sendable {
    /// Country names by ISO code; a code without a name is shown as the code.
    public var countryNames: [String: String]
    /// Admin1 names by "CC.code" (e.g. "US.ME" → "Maine").
    public var admin1Names: [String: String]
    /// Alternate names are kept for places of at least this population…
    public var alternateNamesMinimumPopulation: Int
    /// …in every script from this population, and above only in Latin letters (which fold to ASCII).
    public var alternateNamesAllScriptsPopulation: Int
    /// Free-form facts recorded in the index's `META` section (source, licence).
    public var metadata: [String: String]

    public init(
        countryNames: [String: String], admin1Names: [String: String] = [:],
        alternateNamesMinimumPopulation: Int = 15_000, alternateNamesAllScriptsPopulation: Int = 100_000,
        metadata: [String: String] = [:]
    ) {
        self.countryNames = countryNames
        self.admin1Names = admin1Names
        self.alternateNamesMinimumPopulation = alternateNamesMinimumPopulation
        self.alternateNamesAllScriptsPopulation = alternateNamesAllScriptsPopulation
        self.metadata = metadata
    }

    /// What a build produced, besides the bytes.
    public struct Summary: Sendable {
        public var places = 0
        public var sections = 0
        public var countries = 0
        public var admin1 = 0
        public var placesWithAdmin1Name = 0
        public var searchKeys = 0
        public var alternateKeys = 0
        public var rankedPrefixes = 0
        public var bytes = 0
    }

    /// Builds the index. Places that can name a position come first, in the tree's order, then the city sections in
    /// the order given (sort the input first for a reproducible file).
    public func build(_ records: [PlaceSourceRecord]) -> (bytes: [UInt8], summary: Summary) {
        var summary = Summary()
        summary.places = records.count
        var pool = StringPool()

        // Countries and admin1 divisions, each sorted for a reproducible file.
        let countryCodes = Array(Set(records.map(\.countryCode))).sorted()
        let countryIndex = Dictionary(uniqueKeysWithValues: countryCodes.enumerated().map { ($1, $0) })
        let admin1Keys = Array(
            Set(records.filter { !$0.admin1Code.isEmpty }.map { "\($0.countryCode).\($0.admin1Code)" })
        )
        .sorted()
        precondition(admin1Keys.count < Int(PlacesIndexFormat.noAdmin1), "too many admin1 divisions")
        let admin1Index = Dictionary(uniqueKeysWithValues: admin1Keys.enumerated().map { ($1, $0) })
        summary.countries = countryCodes.count
        summary.admin1 = admin1Keys.count

        var countryBytes = ByteWriter()
        for code in countryCodes {
            let ascii = Array(code.utf8) + [0x20, 0x20]
            countryBytes.bytes(Array(ascii.prefix(2)))
            countryBytes.u16(0)
            countryBytes.u32(pool.add(countryNames[code] ?? code))
        }
        var admin1Bytes = ByteWriter()
        for key in admin1Keys {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            admin1Bytes.u16(UInt16(countryIndex[parts[0]] ?? 0))
            admin1Bytes.u16(0)
            admin1Bytes.u32(pool.add(parts.count > 1 ? parts[1] : ""))
            admin1Bytes.u32(admin1Names[key].map { pool.add($0) } ?? PlacesIndexFormat.noString)
        }

        // Reverse geocoding: a tree over the places that take part in naming a position: places of their own, and
        // city sections (weight negated) that name their city. The places are then numbered in tree order,
        // sections without a city after them, so a tree point needs no reference to its place.
        let sectionCities = SectionFinder.sectionCities(of: records)
        summary.sections = sectionCities.filter { $0 != nil }.count
        let inTree = records.indices.filter { sectionCities[$0].map { $0 >= 0 } ?? true }
        let candidates = inTree.map { index in
            let record = records[index]
            let coordinate = Coordinate(latitude: record.latitude, longitude: record.longitude)
            let weight = Float(PlaceNamingRule.weight(population: record.population))
            return TreeBuilder.Point(
                position: PlaceNamingRule.unitVector(coordinate),
                weight: sectionCities[index] == nil ? weight : -weight,
                place: UInt32(index))
        }
        var tree = TreeBuilder(points: candidates)
        tree.build()
        let ordered =
            tree.points.map { records[Int($0.place)] }
            + records.indices.filter { sectionCities[$0] == -1 }.map { records[$0] }
        var position = [Int](repeating: -1, count: records.count)
        for (at, point) in tree.points.enumerated() { position[Int(point.place)] = at }
        var sectionCityBytes = ByteWriter()
        for point in tree.points {
            // A section's city is a place of its own, so it is in the tree.
            let city = sectionCities[Int(point.place)].map { position[$0] }
            sectionCityBytes.u32(city.map { UInt32($0) } ?? PlacesIndexFormat.noPlace)
        }

        var placeBytes = ByteWriter()
        for record in ordered {
            let admin1Key = "\(record.countryCode).\(record.admin1Code)"
            let admin1 = record.admin1Code.isEmpty ? nil : admin1Index[admin1Key]
            if admin1 != nil, admin1Names[admin1Key] != nil { summary.placesWithAdmin1Name += 1 }
            placeBytes.u32(UInt32(clamping: record.id))
            placeBytes.i32(Int32((record.latitude * PlacesIndexFormat.coordinateScale).rounded()))
            placeBytes.i32(Int32((record.longitude * PlacesIndexFormat.coordinateScale).rounded()))
            placeBytes.u32(UInt32(clamping: record.population))
            placeBytes.u32(pool.add(record.name))
            placeBytes.u16(UInt16(countryIndex[record.countryCode] ?? 0))
            placeBytes.u16(admin1.map(UInt16.init) ?? PlacesIndexFormat.noAdmin1)
        }

        // Search: folded names, sorted, with rankings for prefixes that match many names.
        let keys = searchKeys(ordered, summary: &summary)
        var keyBytes = ByteWriter()
        for key in keys {
            keyBytes.u32(pool.add(key.folded))
            keyBytes.u32(key.reference)
        }
        // A section's city by place number, for the ranking to show a section whose city the prefix names as that city.
        let orderedSectionCities: [Int?] = ordered.indices.map { at in
            guard at < tree.points.count, let city = sectionCities[Int(tree.points[at].place)], city >= 0 else {
                return nil
            }
            return position[city]
        }
        let ranking = PrefixRanker(
            keyBytes: keys.map(\.bytes), keyReferences: keys.map(\.reference), populations: ordered.map(\.population),
            sectionCities: orderedSectionCities, placesInTree: tree.points.count,
            ownNames: ordered.map { SearchKey.foldedBytes($0.name) }
        ).rank()
        summary.rankedPrefixes = ranking.prefixes.count
        var prefixBytes = ByteWriter()
        var rankBytes = ByteWriter()
        for prefix in ranking.prefixes {
            prefixBytes.u32(pool.add(bytes: prefix.text))
            prefixBytes.u32(UInt32(prefix.first))
            prefixBytes.u32(UInt32(prefix.count))
        }
        for key in ranking.keys { rankBytes.u32(key) }

        var meta = metadata
        meta["places"] = String(ordered.count)
        meta["sections"] = String(summary.sections)
        meta["search_keys"] = String(keys.count)
        meta["naming_rule"] = PlaceNamingRule.signature
        let metaJSON =
            "{"
            + meta.keys.sorted().map { "\(JSONString.quoted($0)):\(JSONString.quoted(meta[$0]!))" }
            .joined(separator: ",") + "}"

        var file = SectionFileWriter()
        file.add(.meta, count: 1, Array(metaJSON.utf8))
        file.add(.strings, count: 1, pool.bytes)
        file.add(.places, count: ordered.count, placeBytes.data)
        file.add(.countries, count: countryCodes.count, countryBytes.data)
        file.add(.admin1, count: admin1Keys.count, admin1Bytes.data)
        file.add(.tree, count: tree.nodeCount, tree.nodeBytes.data)
        file.add(.treePoints, count: tree.points.count, tree.pointBytes.data)
        file.add(.sectionCities, count: tree.points.count, sectionCityBytes.data)
        file.add(.keys, count: keys.count, keyBytes.data)
        file.add(.prefixes, count: ranking.prefixes.count, prefixBytes.data)
        file.add(.ranked, count: ranking.keys.count, rankBytes.data)
        let bytes = file.finish()
        summary.bytes = bytes.count
        return (bytes, summary)
    }

    struct SearchKeyEntry {
        var folded: String
        var bytes: [UInt8]
        var reference: UInt32
    }

    private func searchKeys(_ records: [PlaceSourceRecord], summary: inout Summary) -> [SearchKeyEntry] {
        var keys: [SearchKeyEntry] = []
        keys.reserveCapacity(records.count * 2)
        for (index, record) in records.enumerated() {
            let own = SearchKey.fold(record.name)
            if !own.isEmpty {
                keys.append(SearchKeyEntry(folded: own, bytes: Array(own.utf8), reference: UInt32(index)))
            }
            guard record.population >= alternateNamesMinimumPopulation else { continue }
            let allScripts = record.population >= alternateNamesAllScriptsPopulation
            var seen: Set<String> = [own]
            for alternate in record.alternateNames {
                // Digits mark codes and postal forms, not names a person types. (Only digits: a Han character
                // with a numeric value is a letter of a name too, as 京 in 東京 and 北京.)
                if alternate.unicodeScalars.contains(where: {
                    [.decimalNumber, .letterNumber, .otherNumber].contains($0.properties.generalCategory)
                }) {
                    continue
                }
                let folded = SearchKey.fold(alternate)
                guard !folded.isEmpty, folded.utf8.count <= 200, seen.insert(folded).inserted else { continue }
                if !allScripts && !folded.unicodeScalars.allSatisfy(\.isASCII) { continue }
                keys.append(
                    SearchKeyEntry(
                        folded: folded, bytes: Array(folded.utf8),
                        reference: UInt32(index) | PlacesIndexFormat.alternateFlag))
                summary.alternateKeys += 1
            }
        }
        keys.sort { lhs, rhs in
            lhs.bytes != rhs.bytes ? lhs.bytes.lexicographicallyPrecedes(rhs.bytes) : lhs.reference < rhs.reference
        }
        summary.searchKeys = keys.count
        return keys
    }
}
