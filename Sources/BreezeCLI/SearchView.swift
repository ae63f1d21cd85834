import BreezeCore
import BreezeProtocol

/// The interactive search as a state machine with no I/O: keys, replies, timers and the daemon's comings and
/// goings go in (`handle`), requests to send and timers to start come out; `SearchScreen` draws it.
///
/// Before two characters are typed it lists "Use current location", the saved cities and the popular ones. Each
/// change of the query asks for the offline results at once and, after `debounce` without typing, for the online
/// ones, which are merged (marked) when they arrive. Every query change starts a new generation: an answer to an
/// older one is dropped, so a slow answer cannot replace the results of what is typed now.
package struct SearchView {
    package init() {}

    /// A city as the view lists it, its text already made safe for the terminal.
    package struct City: Equatable {
        package var id: Int
        package var name: String
        package var region: String
        package var country: String
        package var population: Int?
        /// Found by the online search only.
        package var online = false
        /// The other name of the city the search matched (`matched`), or empty for its own.
        package var matched = ""
    }

    package enum Entry: Equatable {
        case header(String)
        case here
        case city(City)
    }

    /// What a request was for, to route its reply.
    package enum Purpose: Equatable {
        case popular, savedList, here
        case offline(generation: Int)
        case online(generation: Int)
        case select(City)
        case save(City)
    }

    package enum Event {
        case key(Key)
        case reply(Purpose, JSONValue)
        /// The pause in typing after `generation`'s last change has passed.
        case debounceElapsed(generation: Int)
        case connected
        case daemonLost(String)
        case resized(columns: Int, rows: Int)
    }

    package enum Action: Equatable {
        case send(String, [String: JSONValue], Purpose)
        /// Start (or restart) the pause after which `debounceElapsed(generation)` comes.
        case startDebounce(generation: Int)
        /// Leave the view: `reply` is the `LOCATION` a selection got, printed as `select` prints it.
        case finish(reply: JSONValue?)
    }

    /// The pause in typing before the online search is asked.
    package static let debounce = Duration.milliseconds(300)
    /// The most results asked for.
    package static let limit = 20
    /// The longest query kept: a city's name is far shorter.
    static let maximumQueryLength = 200

    package private(set) var query = ""
    package private(set) var generation = 0
    package private(set) var popular: [City] = []
    package private(set) var saved: [City] = []
    package private(set) var offlineResults: [City] = []
    package private(set) var onlineResults: [City] = []
    /// The generation `offlineResults` answer; the results shown are the latest ones answered.
    package private(set) var resultsGeneration = -1
    /// About the online search of the current query: under way, failed.
    package private(set) var onlineNote: String?
    /// A message for the person: saved, not permitted, the daemon gone.
    package private(set) var notice: String?
    package private(set) var daemonGone = false
    /// The generation of the online search under way, if one is.
    package private(set) var onlineInFlight: Int?
    /// A generation whose online search waits for the one under way.
    private var onlineWaiting: Int?
    /// The index of the selected entry among those that can be selected.
    package private(set) var selection = 0
    package var columns = 80
    package var rows = 24

    package var isSearching: Bool { query.trimmingSpaces().count >= 2 }

    package var results: [City] { offlineResults + onlineResults }

    /// What the list shows, in order.
    package var entries: [Entry] {
        guard isSearching else {
            var entries: [Entry] = [.here]
            if !saved.isEmpty { entries += [.header("Saved cities")] + saved.map(Entry.city) }
            let others = popular.filter { city in !saved.contains { $0.id == city.id } }
            if !others.isEmpty { entries += [.header("Popular cities")] + others.map(Entry.city) }
            return entries
        }
        return results.map(Entry.city)
    }

    /// The entries that can be selected (all but headers).
    package var selectable: [Entry] {
        entries.filter { if case .header = $0 { false } else { true } }
    }

    package var selected: Entry? {
        let selectable = self.selectable
        return selectable.indices.contains(selection) ? selectable[selection] : nil
    }

    package mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .key(let key): return handle(key)
        case .reply(let purpose, let message): return handle(purpose, message)
        case .debounceElapsed(let debounced):
            guard debounced == generation, isSearching, !daemonGone else { return [] }
            onlineNote = "Searching online…"
            // One online search at a time: the next waits for the answer to the one under way (breezed holds at
            // most 8 requests of a client that go online, and stops reading it beyond).
            guard onlineInFlight == nil else {
                onlineWaiting = generation
                return []
            }
            return askOnline()
        case .connected:
            let wasGone = daemonGone
            daemonGone = false
            if wasGone { notice = "breezed is back." }
            var actions: [Action] = [
                .send("popular", [:], .popular), .send("saved", ["action": .string("list")], .savedList),
            ]
            if isSearching { actions += queryChanged() }
            return actions
        case .daemonLost(let reason):
            daemonGone = true
            onlineInFlight = nil
            onlineWaiting = nil
            onlineNote = nil
            notice = "breezed went away (\(TerminalText.escaped(reason))). Your query is kept; trying again…"
            return []
        case .resized(let columns, let rows):
            self.columns = columns
            self.rows = rows
            return []
        }
    }

    private mutating func handle(_ key: Key) -> [Action] {
        switch key {
        case .text(let text):
            guard query.count + text.count <= Self.maximumQueryLength else { return [] }
            query += text
            return queryChanged()
        case .backspace:
            guard !query.isEmpty else { return [] }
            query.removeLast()
            return queryChanged()
        case .clearLine:
            guard !query.isEmpty else { return [] }
            query = ""
            return queryChanged()
        case .up:
            selection = max(selection - 1, 0)
            return []
        case .down:
            selection = min(selection + 1, max(selectable.count - 1, 0))
            return []
        case .escape, .interrupt:
            return [.finish(reply: nil)]
        case .enter:
            guard !daemonGone else { return [] }
            switch selected {
            case .here?:
                notice = "Going back to this machine's position…"
                return [.send("here", [:], .here)]
            case .city(let city)?:
                notice = "Selecting \(city.name)…"
                return [.send("select", ["city": .number(Double(city.id))], .select(city))]
            default:
                return []
            }
        case .save:
            guard !daemonGone, case .city(let city)? = selected else { return [] }
            return [.send("saved", ["action": .string("add"), "city": .number(Double(city.id))], .save(city))]
        }
    }

    private mutating func askOnline() -> [Action] {
        onlineInFlight = generation
        onlineWaiting = nil
        return [.send("search", Self.searchArguments(query, online: true), .online(generation: generation))]
    }

    /// After an online answer (or refusal): the online search that waited for it, if it is still the current one.
    private mutating func onlineAnswered(_ answered: Int) -> [Action] {
        guard onlineInFlight == answered else { return [] }
        onlineInFlight = nil
        guard onlineWaiting == generation, isSearching, !daemonGone else {
            onlineWaiting = nil
            return []
        }
        return askOnline()
    }

    /// A new generation: offline results asked for now, online ones after the pause.
    private mutating func queryChanged() -> [Action] {
        generation += 1
        selection = 0
        notice = daemonGone ? notice : nil
        onlineNote = nil
        guard isSearching, !daemonGone else { return [] }
        return [
            .send("search", Self.searchArguments(query, online: false), .offline(generation: generation)),
            .startDebounce(generation: generation),
        ]
    }

    package static func searchArguments(_ query: String, online: Bool) -> [String: JSONValue] {
        ["query": .string(query), "limit": .number(Double(limit)), "online": .bool(online)]
    }

    private mutating func handle(_ purpose: Purpose, _ message: JSONValue) -> [Action] {
        if case .online(let answered) = purpose {
            let next = onlineAnswered(answered)
            return handleAnswer(purpose, message) + next
        }
        return handleAnswer(purpose, message)
    }

    private mutating func handleAnswer(_ purpose: Purpose, _ message: JSONValue) -> [Action] {
        if message["class"]?.stringValue == "ERROR" {
            let text = message["message"]?.displayText ?? "breezed refused the request"
            switch purpose {
            case .offline(let answered), .online(let answered):
                guard answered == generation else { return [] }
                onlineNote = nil
                notice = text
            case .select, .here, .save:
                notice = text
            case .popular, .savedList:
                break
            }
            return []
        }
        switch purpose {
        case .popular:
            popular = Self.cities(in: message, online: false)
        case .savedList:
            saved = Self.cities(in: message, online: false)
        case .offline(let answered):
            guard answered == generation else { return [] }
            let keptSelection = resultsGeneration == generation
            offlineResults = Self.cities(in: message, online: false)
            // Online results that came first stay, less those the offline ones hold.
            if resultsGeneration != generation { onlineResults = [] }
            onlineResults.removeAll { city in offlineResults.contains { $0.id == city.id } }
            resultsGeneration = generation
            if !keptSelection { selection = 0 }
        case .online(let answered):
            guard answered == generation else { return [] }
            if resultsGeneration != generation { offlineResults = [] }
            resultsGeneration = generation
            let found = Self.cities(in: message, online: true)
            onlineResults = found.filter { city in !offlineResults.contains { $0.id == city.id } }
            let state = message["online"]?.stringValue ?? "off"
            onlineNote =
                state.hasPrefix("failed")
                ? "Online search failed (\(TerminalText.escaped(state))); offline results only." : nil
        case .select, .here:
            return [.finish(reply: message)]
        case .save(let city):
            saved = Self.cities(in: message, online: false)
            notice = "Saved \(city.name)."
        }
        selection = min(selection, max(selectable.count - 1, 0))
        return []
    }

    /// The cities of a `PLACES` or `SAVED` reply; a place without a usable id is left out (it cannot be selected).
    package static func cities(in message: JSONValue, online: Bool) -> [City] {
        guard case .array(let places)? = message["places"] else { return [] }
        return places.compactMap { place in
            guard let number = place["geoname_id"]?.numberValue, let id = Int(exactly: number) else { return nil }
            let name = place["city"]?.displayText ?? place["name"]?.displayText ?? "?"
            let population = place["population"]?.numberValue.flatMap { Int(exactly: $0) }
            return City(
                id: id, name: name, region: place["admin1"]?.displayText ?? "",
                country: place["country"]?.displayText ?? "", population: population, online: online,
                matched: place["matched"]?.displayText ?? "")
        }
    }
}
