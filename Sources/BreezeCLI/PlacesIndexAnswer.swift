import BreezeCore
import BreezePlaces
import BreezeProtocol
import BreezeSystem

/// `search` and `lookup` answered from the places index itself, for when breezed is not running: both only read
/// the index, so they need not fail. The answers are the objects breezed would send, offline only.
struct PlacesIndexAnswer {
    let index: PlacesIndex
    /// Where the index was found.
    let path: String

    /// The index breezed would use by default (`BREEZE_PLACES_INDEX`, the installed copies, this source tree's);
    /// nil when there is none or it cannot be read.
    init?(environment: ProcessEnvironment.Variables) {
        guard let path = PlacesIndexLocation.find(environment: environment),
            let index = try? PlacesIndex(path: path)
        else { return nil }
        self.index = index
        self.path = path
    }

    /// What stderr says when an answer comes from here.
    var notice: String {
        "breezectl: breezed is not running; answered from the places index (\(TerminalText.escaped(path))), "
            + "without online results\n"
    }

    /// What stderr says when breezed was reached but did not answer (`reason`: in time, or with its refusal), and
    /// the answer comes from here.
    func notAnsweringNotice(_ reason: String) -> String {
        let firstLine = reason.split(separator: "\n").first.map(String.init) ?? reason
        return "breezectl: \(firstLine); answered from the places index (\(TerminalText.escaped(path))), "
            + "without online results\n"
    }

    /// The `PLACES` breezed sends for `search`, with `online` "off".
    func search(_ query: String, limit: Int = 10) -> JSONValue {
        let trimmed = query.trimmingSpaces()
        let places = CitySearch(index: index).search(trimmed, limit: limit).map {
            ProtocolMessage.place($0.place, distance: nil, matched: $0.matchedName)
        }
        return .object([
            ("class", .string("PLACES")), ("query", .string(trimmed)), ("online", .string("off")),
            ("places", .array(places)),
        ])
    }

    /// The `PLACE` breezed sends for `lookup`; the same errors as breezed's, as breezectl reports them.
    func lookup(latitude: Double, longitude: Double) throws(CLIError) -> JSONValue {
        guard let coordinate = Coordinate(validatingLatitude: latitude, longitude: longitude) else {
            throw CLIError(.usage, "latitude must be within ±90 and longitude within ±180")
        }
        guard let match = ReverseGeocoder(index: index).place(for: coordinate) else {
            throw CLIError(.failure, "no place in the index (not-found)")
        }
        return ProtocolMessage.place(match.place, distance: match.distance)
    }
}
