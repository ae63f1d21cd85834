extension PlacesIndexBuilder {
    /// The index in `bytes` (this format, or version 3, the one before) with its prefix rankings made again as this
    /// program ranks a search: every other section as it was. For an index built by an older builder when its
    /// sources cannot be had again; an index this builder made comes back unchanged.
    public static func rankedAgain(_ bytes: [UInt8]) throws(PlacesIndexError) -> [UInt8] {
        let path = "<index to rank again>"
        let index = try PlacesIndex(
            file: MappedFile(bytes: bytes), path: path, versions: 3...PlacesIndexFormat.version)
        let keys = KeyTable(index)
        let search = CitySearch(index: index)
        let ranking = PrefixRanker(
            keyBytes: (0..<index.keys.count).map { Array(keys.bytes($0)) },
            keyReferences: (0..<index.keys.count).map { search.reference($0) },
            populations: (0..<index.count).map { Int(index.population(ofPlace: $0)) },
            sectionCities: (0..<index.count).map { index.sectionCity(ofPlace: $0) },
            placesInTree: index.treePoints.count,
            ownNames: (0..<index.count).map { SearchKey.foldedBytes(index.name(ofPlace: $0)) }
        ).rank()

        // Which prefixes are ranked depends on the keys alone: they are the file's, whose text is in the pool.
        guard ranking.prefixes.count == index.prefixes.count else {
            throw PlacesIndexError(.corrupt, path: path, "its ranked prefixes are not those of its keys")
        }
        var prefixBytes = ByteWriter()
        for (at, prefix) in ranking.prefixes.enumerated() {
            let text = index.u32(index.prefixes.offset + at * PlacesIndexFormat.prefixSize)
            guard let stored = index.stringBytes(at: text), stored.elementsEqual(prefix.text) else {
                throw PlacesIndexError(.corrupt, path: path, "its ranked prefixes are not those of its keys")
            }
            prefixBytes.u32(text)
            prefixBytes.u32(UInt32(prefix.first))
            prefixBytes.u32(UInt32(prefix.count))
        }
        var rankBytes = ByteWriter()
        for key in ranking.keys { rankBytes.u32(key) }

        var file = SectionFileWriter()
        for tag in PlacesIndexFormat.Tag.allCases {
            switch tag {
            case .prefixes: file.add(tag, count: ranking.prefixes.count, prefixBytes.data)
            case .ranked: file.add(tag, count: ranking.keys.count, rankBytes.data)
            default:
                let section = index.section(tag)
                file.add(tag, count: section.count, index.bytes(of: section))
            }
        }
        return file.finish()
    }
}
