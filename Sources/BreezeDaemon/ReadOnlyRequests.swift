import BreezeCore
import BreezePlaces
import BreezeProtocol
import BreezeWeb
import FoundationEssentials
import Synchronization

/// The requests that only read — `lookup`, `search`, `popular`, the `saved` list — answered from memory the daemon
/// keeps for them: the places index (mapped, never changed) and a copy of the saved cities, replaced on each change.
///
/// The socket server calls `answerNow` on its own thread, so these answers need no task and never wait behind the
/// daemon's actor (a state change, a fetch being started): a `lookup` is a few microseconds of work, and a task hop
/// and an actor queue would cost many times that. Only a search that goes online is answered later, by `search`.
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

    /// The answer to a request that only reads, now, as the lines to send (the request's id in each); nil for any
    /// other request, and for a search that goes online. Errors are answers (an `ERROR` carrying the request's id).
    /// Encoded straight to bytes: the same lines as the `JSONValue` answers made replies and encoded.
    func answerNow(_ request: ProtocolRequest) -> [[UInt8]]? {
        guard case .daemon(let command) = request.command.route else { return nil }
        do throws(ProtocolError) {
            switch command {
            case .lookup:
                let match = try lookupMatch(request)
                return [ProtocolMessage.placeLine(match.place, distance: match.distance, id: request.id)]
            case .popular:
                return [ProtocolMessage.placesLine(popularPlaces(), extra: [], id: request.id)]
            case .saved:
                guard try request.string("action", default: "list") == "list" else { return nil }
                return [ProtocolMessage.placesLine(savedCities, extra: Self.savedExtra, id: request.id)]
            case .search:
                let (query, limit, wantsOnline) = try searchArguments(request)
                if wantsOnline, let geocoding, geocoding.canSearchNow { return nil }
                // Online search off, or it would be refused now (its budget spent, its slots taken): the offline
                // answer, saying why nothing came from the web.
                // Not asked for (`online` false) is "off", as online search switched off is.
                let online = geocoding == nil || !wantsOnline ? "off" : "failed: \(WebError.Code.overBudget.rawValue)"
                // Written straight from the index's bytes: making each place's strings cost a third of the answer.
                let positions = citySearch.positions(matching: query, limit: limit)
                return [ProtocolMessage.placesLine(
                    expectedCount: positions.count, extra: [("query", .string(query)), ("online", .string(online))],
                    id: request.id
                ) { write in
                    for position in positions { index.withPlaceText(at: position, write) }
                }]
            case .select, .here, .location, .refresh:
                return nil
            }
        } catch {
            return [ProtocolMessage.reply(ProtocolMessage.error(error, id: request.id), id: request.id).encodedLine()]
        }
    }

    /// A search, online too when the daemon has online search and the request does not say `online` false: the offline matches first, then new ones from the
    /// web up to `limit`. The web's failure is part of the answer (`online`), not an error.
    func search(_ request: ProtocolRequest) async throws(ProtocolError) -> JSONValue {
        let (query, limit, wantsOnline) = try searchArguments(request)
        var places = citySearch.search(query, limit: limit).map(\.place)
        var online = "off"
        if let geocoding, wantsOnline {
            do throws(WebError) {
                let found = try await geocoding.search(query, count: limit)
                online = "ok"
                recentOnline.withLock { recent in
                    for place in found { recent.insert(place) }
                }
                for place in found where !places.contains(where: { $0.id == place.id }) && places.count < limit {
                    places.append(place)
                }
            } catch {
                online = "failed: \(error.code.rawValue)"
            }
        }
        return ProtocolMessage.places(places, extra: [("query", .string(query)), ("online", .string(online))])
    }

    /// The place with GeoNames id `id`, from the index or a recent online search.
    func place(id: Int) -> Place? {
        if let position = index.placeIndex(geonameID: id), let place = index.place(at: position) { return place }
        return recentOnline.withLock { $0[id] }
    }

    /// The popular cities (`popular`).
    func popular() -> JSONValue {
        ProtocolMessage.places(popularPlaces(), extra: [])
    }

    private func popularPlaces() -> [Place] {
        PopularCities.resolve(with: citySearch).map(\.place)
    }

    /// The saved cities (`saved` with the action `list`).
    func savedList() -> JSONValue {
        ProtocolMessage.places(savedCities, extra: Self.savedExtra)
    }

    private static let savedExtra: [(String, JSONValue)] = [("class", .string("SAVED"))]

    /// The place at a latitude and longitude (`lookup`).
    func lookup(_ request: ProtocolRequest) throws(ProtocolError) -> JSONValue {
        let match = try lookupMatch(request)
        return ProtocolMessage.place(match.place, distance: match.distance)
    }

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
