import BreezeCore

extension CitySearch {
    /// The places that bear `query` as a whole name, their own or an alternate one, most populous first: what a
    /// configuration naming a city (`fallback_city`) must match, where `search` would also take a prefix or a
    /// typing slip. Case and diacritics do not count ("zurich" is Zürich); a comma narrows as in `search`
    /// ("Portland, Maine").
    public func places(named query: String) -> [Place] {
        let parts = query.split(separator: ",", omittingEmptySubsequences: false)
        let name = SearchKey.foldedBytes(parts.first ?? "")
        guard !name.isEmpty else { return [] }
        let filters = parts.dropFirst().map { SearchKey.fold($0) }.filter { !$0.isEmpty }
        var found: [Int] = []
        // Whole-name keys sort first among the keys that start with the name.
        for key in keyRange(prefix: name) {
            guard keyLength(key) == name.count else { break }
            let place = Int(reference(key) & ~PlacesIndexFormat.alternateFlag)
            guard place < index.count, !found.contains(place),
                filters.isEmpty || matches(place: place, filters: filters)
            else { continue }
            found.append(place)
        }
        return found.sorted { index.population(ofPlace: $0) > index.population(ofPlace: $1) }
            .compactMap { index.place(at: $0) }
    }
}
