import BreezeCore
import BreezePlaces
import BreezeProtocol
import BreezeServer
import BreezeWeb
import FoundationEssentials
import Synchronization

/// The requests that only read — `lookup`, `search`, `popular`, the `saved` list — answered from memory the daemon
/// keeps for them: the places index (mapped, never changed) and a copy of the saved cities, replaced on each change.
///
/// Each answer is the lines to send, encoded, for the socket server to send from its own thread: these need no task
/// and never wait behind the daemon's actor (a state change, a fetch being started). A `lookup` is a few
/// microseconds of work, and a task hop and an actor queue would cost many times that. Only a search that goes online
/// is answered later, by a task.
final class ReadOnlyRequests: Sendable {
    /// The most results a `search` answers with (its `limit`).
    static let maximumSearchResults = 50
    /// Places met in online search results that are remembered (so `select` can take their ids), newest kept.
    static let maximumRecentOnline = 1_000

    let index: PlacesIndex
    let geocoder: ReverseGeocoder
    let citySearch: CitySearch
    let geocoding: GeocodingClient?
    private let saved: Mutex<[Place]>
    private let recentOnline = Mutex(RecentPlaces(capacity: maximumRecentOnline))

    init(index: PlacesIndex, geocoding: GeocodingClient?, saved: [Place]) {
        self.index = index
        geocoder = ReverseGeocoder(index: index)
        citySearch = CitySearch(index: index)
        self.geocoding = geocoding
        self.saved = Mutex(saved)
    }

    /// The saved cities as the daemon last stored them.
    var savedCities: [Place] {
        get { saved.withLock { $0 } }
        set { saved.withLock { $0 = newValue } }
    }

    /// The answer to `lookup`: the place at a latitude and longitude.
    func lookup(_ request: ProtocolRequest) -> [[UInt8]] {
        Self.lines(request) { () throws(ProtocolError) in
            let match = try lookupMatch(request)
            let place = ProtocolMessage.place(
                match.place, distance: match.distance, distinctName: citySearch.distinctName(match.place))
            return Self.line(place, answering: request)
        }
    }

    /// The answer to `popular`.
    func popular(_ request: ProtocolRequest) -> [[UInt8]] {
        [Self.line(ProtocolMessage.places(popularPlaces(), extra: []), answering: request)]
    }

    /// The answer to `saved` with the action `list`, and to a change of the saved cities once it is made.
    func savedList(_ request: ProtocolRequest) -> [[UInt8]] {
        [Self.line(ProtocolMessage.places(savedCities, extra: Self.savedExtra), answering: request)]
    }

    /// The answer to `search`: now, from the index, when it stays offline (asked to, online search off, or the web
    /// would refuse it now: its budget spent, its slots taken); later when it goes online too.
    func search(_ request: ProtocolRequest) -> SocketServer.Answer {
        let arguments: (query: String, limit: Int, online: Bool)
        do throws(ProtocolError) {
            arguments = try searchArguments(request)
        } catch {
            return .now(Self.errorLines(error, request))
        }
        let (query, limit, wantsOnline) = arguments
        if wantsOnline, let geocoding, geocoding.canSearchNow {
            return .later { [self] in
                [Self.line(await searchOnline(query, limit: limit, geocoding), answering: request)]
            }
        }
        // Not asked for (`online` false) is "off", as online search switched off is.
        let online = geocoding == nil || !wantsOnline ? "off" : "failed: \(WebError.Code.overBudget.rawValue)"
        let places = citySearch.search(query, limit: limit).map { ($0.place, $0.matchedName) }
        let extra: [(String, JSONValue)] = [("query", .string(query)), ("online", .string(online))]
        return .now([Self.line(ProtocolMessage.places(places, extra: extra), answering: request)])
    }

    /// `message` as the line answering `request`.
    private static func line(_ message: JSONValue, answering request: ProtocolRequest) -> [UInt8] {
        ProtocolMessage.reply(message, id: request.id).encodedLine()
    }

    /// The lines `answer` gives, or its error's.
    private static func lines(
        _ request: ProtocolRequest, _ answer: () throws(ProtocolError) -> [UInt8]
    ) -> [[UInt8]] {
        do throws(ProtocolError) {
            return [try answer()]
        } catch {
            return errorLines(error, request)
        }
    }

    /// An error answering `request`, as its line.
    static func errorLines(_ error: ProtocolError, _ request: ProtocolRequest) -> [[UInt8]] {
        [ProtocolMessage.error(error, id: request.id).encodedLine()]
    }

    /// An online search: the offline matches first, then new ones from the web up to `limit`. The web's failure is
    /// part of the answer (`online`), not an error.
    private func searchOnline(_ query: String, limit: Int, _ geocoding: GeocodingClient) async -> JSONValue {
        var places: [(place: Place, matched: String?)] = citySearch.search(query, limit: limit).map {
            ($0.place, $0.matchedName)
        }
        var online: String
        do throws(WebError) {
            let found = try await geocoding.search(query, count: limit)
            online = "ok"
            recentOnline.withLock { recent in
                for place in found { recent.insert(place) }
            }
            for place in found where !places.contains(where: { $0.place.id == place.id }) && places.count < limit {
                places.append((place, nil))
            }
        } catch {
            online = "failed: \(error.code.rawValue)"
        }
        return ProtocolMessage.places(places, extra: [("query", .string(query)), ("online", .string(online))])
    }

    /// The place with GeoNames id `id`, from the index or a recent online search.
    func place(id: Int) -> Place? {
        if let position = index.placeIndex(geonameID: id), let place = index.place(at: position) { return place }
        return recentOnline.withLock { $0[id] }
    }

    private func popularPlaces() -> [Place] {
        PopularCities.resolve(with: citySearch).map(\.place)
    }

    private static let savedExtra: [(String, JSONValue)] = [("class", .string("SAVED"))]

    private func lookupMatch(_ request: ProtocolRequest) throws(ProtocolError) -> (place: Place, distance: Double) {
        let latitude = try request.number("latitude")
        let longitude = try request.number("longitude")
        guard let coordinate = Coordinate(validatingLatitude: latitude, longitude: longitude) else {
            throw ProtocolError(.badArgument, "latitude must be within ±90 and longitude within ±180")
        }
        guard let match = geocoder.place(for: coordinate) else {
            throw ProtocolError(.notFound, "no place in the index")
        }
        return (match.place, match.distance)
    }

    private func searchArguments(
        _ request: ProtocolRequest
    ) throws(ProtocolError) -> (query: String, limit: Int, online: Bool) {
        let query = try request.string("query").trimmingSpaces()
        let limit = try request.integer("limit", default: 10, in: 1...Self.maximumSearchResults)
        let online = try request.bool("online", default: true)
        // Counted only as far as the least a search needs: counting every character costs more than the search.
        guard query.index(query.startIndex, offsetBy: CitySearch.minimumQueryLength, limitedBy: query.endIndex) != nil
        else {
            throw ProtocolError(.badArgument, "a search needs at least \(CitySearch.minimumQueryLength) characters")
        }
        return (query, limit, online)
    }
}

/// Places by id, at most `capacity`; past it the oldest goes.
struct RecentPlaces: Sendable {
    let capacity: Int
    private var places: [Int: Place] = [:]
    private var order: [Int] = []
    private var oldest = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    subscript(id: Int) -> Place? { places[id] }

    mutating func insert(_ place: Place) {
        if places.updateValue(place, forKey: place.id) != nil { return }
        if order.count < capacity {
            order.append(place.id)
        } else {
            places[order[oldest]] = nil
            order[oldest] = place.id
            oldest = (oldest + 1) % capacity
        }
    }
}
