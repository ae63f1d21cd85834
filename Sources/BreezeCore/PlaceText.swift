/// A place's members with its text as UTF-8 bytes, borrowed for the length of one call: what an answer needs to
/// write a place, without a `Place` and its strings made first. A search's answer writes its places straight from
/// the places index's bytes this way; a `Place` lends its strings' bytes (`withText`).
///
/// The bytes are only valid inside the call that lends them, and need not be valid UTF-8 (an index on disk may be
/// damaged): a writer reads them as `String(decoding:as:)` would, repairing what is not.
public struct PlaceText {
    public var id: Int
    public var name: UnsafeRawBufferPointer
    public var admin1: UnsafeRawBufferPointer?
    public var country: UnsafeRawBufferPointer
    public var countryCode: UnsafeRawBufferPointer
    public var population: Int
    public var coordinate: Coordinate

    public init(
        id: Int, name: UnsafeRawBufferPointer, admin1: UnsafeRawBufferPointer?, country: UnsafeRawBufferPointer,
        countryCode: UnsafeRawBufferPointer, population: Int, coordinate: Coordinate
    ) {
        self.id = id
        self.name = name
        self.admin1 = admin1
        self.country = country
        self.countryCode = countryCode
        self.population = population
        self.coordinate = coordinate
    }
}

extension Place {
    /// The place as `PlaceText`, lent to `body`.
    public func withText<Result>(_ body: (PlaceText) throws -> Result) rethrows -> Result {
        var name = name
        var country = country
        var countryCode = countryCode
        return try name.withUTF8 { name in
            try country.withUTF8 { country in
                try countryCode.withUTF8 { countryCode in
                    func text(admin1: UnsafeRawBufferPointer?) throws -> Result {
                        try body(
                            PlaceText(
                                id: id, name: UnsafeRawBufferPointer(name), admin1: admin1,
                                country: UnsafeRawBufferPointer(country),
                                countryCode: UnsafeRawBufferPointer(countryCode),
                                population: population, coordinate: coordinate))
                    }
                    guard var admin1 else { return try text(admin1: nil) }
                    return try admin1.withUTF8 { try text(admin1: UnsafeRawBufferPointer($0)) }
                }
            }
        }
    }
}
