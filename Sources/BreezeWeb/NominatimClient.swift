public import BreezeCore
import FoundationEssentials

/// Optional online reverse geocoding through Nominatim (`GET /reverse`), under its usage policy: at most one
/// request a second, an identifying User-Agent (set on the `HTTPClient`), and results cached.
public actor NominatimClient {
    private let http: HTTPClient
    private let base: URL
    private let minimumInterval: Duration
    private let clock: any ServiceClock
    private var lastRequest: ContinuousClock.Instant?
    private var cache: [String: Place?] = [:]
    private var cacheOrder: [String] = []
    private let cacheLimit = 512
    /// The longest a request waits for its turn under the once-a-second rule.
    private let maximumWait = Duration.seconds(5)

    public init(
        http: HTTPClient, base: URL, minimumInterval: Duration = .seconds(1), clock: any ServiceClock = .system
    ) {
        self.http = http
        self.base = base
        self.minimumInterval = minimumInterval
        self.clock = clock
    }

    /// The city, town, village or hamlet at `coordinate`; nil where Nominatim names none. Positions within about
    /// 100 m share one cached answer.
    public func place(at coordinate: Coordinate) async throws(WebError) -> Place? {
        let cell = coordinate.rounded(toDecimals: 3)
        let key = "\(cell.latitude),\(cell.longitude)"
        if let cached = cache[key] { return cached }
        // Space requests a second apart, counting from when each was sent (the actor is reentrant, so claim the
        // slot before suspending).
        let slot = lastRequest.map { max(clock.now, $0 + minimumInterval) } ?? clock.now
        // Places arriving faster than one a second would otherwise queue here without end: past a short wait, the
        // offline name stands.
        guard clock.now.duration(to: slot) <= maximumWait else {
            throw WebError(.overBudget, "Nominatim is asked at most once a second; this place waits its turn no longer")
        }
        lastRequest = slot
        do {
            try await clock.sleep(until: slot)
        } catch {
            throw WebError(.transport, "cancelled")
        }
        let url = WebEndpoints.url(
            base, "/reverse",
            [
                ("format", "jsonv2"), ("lat", WebEndpoints.degrees(coordinate.latitude)),
                ("lon", WebEndpoints.degrees(coordinate.longitude)), ("zoom", "10"), ("accept-language", "en"),
            ])
        let response: HTTPClient.Response
        do throws(WebError) {
            response = try await http.get(url)
            // Count the second from the answer too: a slow first request must not let the next one crowd it.
            lastRequest = max(lastRequest ?? clock.now, clock.now)
        } catch {
            lastRequest = max(lastRequest ?? clock.now, clock.now)
            throw error
        }
        let place = try Self.place(from: try OpenMeteoResponse.body(of: response), at: coordinate)
        remember(key, place)
        return place
    }

    private func remember(_ key: String, _ place: Place?) {
        if cache.updateValue(place, forKey: key) == nil { cacheOrder.append(key) }
        if cacheOrder.count > cacheLimit { cache.removeValue(forKey: cacheOrder.removeFirst()) }
    }

    /// The place an answer's body names, its `place_id` checked (`PayloadLimits.placeID`) and its names capped;
    /// nil where it names no city, town, village or hamlet. A pure function, for fuzzing.
    ///
    /// The id is the negated `place_id`, so it never meets a GeoNames id; 0 when the answer has none.
    public static func place(from body: Data, at coordinate: Coordinate) throws(WebError) -> Place? {
        let payload = try OpenMeteoResponse.decode(Payload.self, from: body)
        let placeID = try payload.placeID.map { id throws(WebError) in
            try PayloadLimits.integer(id, in: PayloadLimits.placeID, field: "place_id")
        }
        guard let address = payload.address,
            let name = address.city ?? address.town ?? address.village ?? address.hamlet
        else { return nil }
        return Place(
            id: -(placeID ?? 0), name: PayloadLimits.capped(name), admin1: address.state.map(PayloadLimits.capped),
            country: PayloadLimits.capped(address.country ?? ""),
            countryCode: PayloadLimits.capped(address.countryCode?.uppercased() ?? ""), population: 0,
            coordinate: coordinate)
    }

    private struct Payload: Decodable {
        var placeID: Double?
        var address: Address?

        enum CodingKeys: String, CodingKey {
            case placeID = "place_id"
            case address
        }
    }

    private struct Address: Decodable {
        var city: String?
        var town: String?
        var village: String?
        var hamlet: String?
        var state: String?
        var country: String?
        var countryCode: String?

        enum CodingKeys: String, CodingKey {
            case city, town, village, hamlet, state, country
            case countryCode = "country_code"
        }
    }
}
