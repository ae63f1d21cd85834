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

extension CitySearch {
    /// The place a name given to choose one stands for (`select`, `saved add`): the most populous place of its own
    /// whose own name is the whole query ("bath" is Bath, though Bathinda is bigger; a comma narrows as in `search`),
    /// else the search's first match.
    public func bestMatch(_ query: String) -> CityMatch? {
        let parts = query.split(separator: ",", omittingEmptySubsequences: false)
        let name = SearchKey.foldedBytes(parts.first ?? "")
        let filters = parts.dropFirst().map { SearchKey.fold($0) }.filter { !$0.isEmpty }
        var best: Int?
        for place in placesOfTheirOwn(named: name) where filters.isEmpty || matches(place: place, filters: filters) {
            if best.map({ index.population(ofPlace: place) > index.population(ofPlace: $0) }) ?? true { best = place }
        }
        guard let best, let place = index.place(at: best) else { return search(query, limit: 1).first }
        return CityMatch(place: place, index: best, matchedAlternateName: false, matchedName: nil)
    }
}

extension CitySearch {
    /// Whether another place of its own bears `place`'s name, folded, in its country ("Portland" in the United
    /// States): then its region is what tells them apart (`distinctName`).
    public func hasNamesake(_ place: Place) -> Bool {
        let name = SearchKey.foldedBytes(place.name)
        guard !name.isEmpty else { return false }
        return placesOfTheirOwn(named: name).contains { other in
            guard let candidate = index.place(at: other) else { return false }
            return candidate.id != place.id && candidate.countryCode == place.countryCode
        }
    }

    /// The places whose own name, folded, is `name` (not an alternate name's match, not a section of a city): what
    /// `bestMatch` and `hasNamesake` choose from.
    private func placesOfTheirOwn(named name: [UInt8]) -> [Int] {
        var found: [Int] = []
        // Whole-name keys sort first among the keys that start with the name.
        for key in keyRange(prefix: name) {
            guard keyLength(key) == name.count else { break }
            let reference = reference(key)
            let place = Int(reference)
            guard reference & PlacesIndexFormat.alternateFlag == 0, place < index.count,
                index.sectionCity(ofPlace: place) == nil, !index.isSectionWithoutCity(place)
            else { continue }
            found.append(place)
        }
        return found
    }

    /// "City, Country", or "City, Region, Country" where another place of that name is in the same country.
    public func distinctName(_ place: Place) -> String {
        hasNamesake(place) ? place.qualifiedName : place.displayName
    }
}
