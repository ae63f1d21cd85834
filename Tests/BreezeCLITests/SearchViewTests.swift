import BreezeCLI
import BreezeCore
import BreezeProtocol
import Testing

/// The interactive search's state machine: what each key, reply and timer asks for, and what the list shows.
@Suite struct SearchViewTests {
    static func places(_ cities: [(Int, String)], online: String? = nil, className: String = "PLACES") -> JSONValue {
        var members: [(String, JSONValue)] = [("class", .string(className))]
        if let online { members.append(("online", .string(online))) }
        members.append(
            (
                "places",
                .array(
                    cities.map { id, name in
                        .object([
                            ("class", .string("PLACE")), ("city", .string(name)), ("admin1", .string("Region")),
                            ("country", .string("Country")), ("geoname_id", .number(Double(id))),
                            ("population", .number(1_000)),
                        ])
                    })
            ))
        return .object(members)
    }

    /// A view connected, with popular cities and no saved ones.
    static func connected() -> SearchView {
        var view = SearchView()
        _ = view.handle(.connected)
        _ = view.handle(.reply(.popular, places([(1, "Tokyo"), (2, "Paris")])))
        _ = view.handle(.reply(.savedList, places([], className: "SAVED")))
        return view
    }

    static func names(_ view: SearchView) -> [String] {
        view.entries.map { entry in
            switch entry {
            case .header(let title): "# " + title
            case .here: "here"
            case .city(let city): city.name + (city.online ? " (online)" : "")
            }
        }
    }

    @Test func connectingAsksForPopularAndSavedCities() {
        var view = SearchView()
        let actions = view.handle(.connected)
        #expect(actions == [.send("popular", [:], .popular), .send("saved", ["action": .string("list")], .savedList)])
    }

    @Test func beforeTwoCharactersTheListIsHereSavedAndPopular() {
        var view = Self.connected()
        _ = view.handle(.reply(.savedList, Self.places([(2, "Paris")], className: "SAVED")))
        #expect(Self.names(view) == ["here", "# Saved cities", "Paris", "# Popular cities", "Tokyo"])
        #expect(view.selected == .here)
        // One character: no search yet.
        #expect(view.handle(.key(.text("z"))) == [])
        #expect(Self.names(view).first == "here")
    }

    @Test func typingAsksOfflineAtOnceAndOnlineAfterThePause() {
        var view = Self.connected()
        _ = view.handle(.key(.text("z")))
        let actions = view.handle(.key(.text("ü")))
        let generation = view.generation
        #expect(
            actions == [
                .send("search", SearchView.searchArguments("zü", online: false), .offline(generation: generation)),
                .startDebounce(generation: generation),
            ])
        // The pause of an earlier generation does nothing; this one's asks online.
        #expect(view.handle(.debounceElapsed(generation: generation - 1)) == [])
        #expect(
            view.handle(.debounceElapsed(generation: generation)) == [
                .send("search", SearchView.searchArguments("zü", online: true), .online(generation: generation))
            ])
        #expect(view.onlineNote != nil)
    }

    @Test func onlineResultsAreMergedAndMarked() {
        var view = Self.connected()
        _ = view.handle(.key(.text("zu")))
        let generation = view.generation
        _ = view.handle(
            .reply(.offline(generation: generation), Self.places([(10, "Zürich"), (11, "Zug")], online: "off")))
        #expect(Self.names(view) == ["Zürich", "Zug"])
        _ = view.handle(
            .reply(.online(generation: generation), Self.places([(10, "Zürich"), (12, "Zuni")], online: "ok")))
        #expect(Self.names(view) == ["Zürich", "Zug", "Zuni (online)"])
        #expect(view.onlineNote == nil)
    }

    @Test func anAnswerToAnOlderQueryIsDropped() {
        var view = Self.connected()
        _ = view.handle(.key(.text("zu")))
        let old = view.generation
        _ = view.handle(.key(.text("g")))
        _ = view.handle(.reply(.offline(generation: view.generation), Self.places([(11, "Zug")])))
        _ = view.handle(.reply(.offline(generation: old), Self.places([(10, "Zürich")])))
        _ = view.handle(.reply(.online(generation: old), Self.places([(12, "Zuni")], online: "ok")))
        #expect(Self.names(view) == ["Zug"])
    }

    @Test func oneOnlineSearchAtATimeAndTheLatestWaitingOneFollows() {
        var view = Self.connected()
        _ = view.handle(.key(.text("zu")))
        let first = view.generation
        #expect(view.handle(.debounceElapsed(generation: first)).count == 1)
        _ = view.handle(.key(.text("r")))
        let second = view.generation
        // The first is still under way: the second waits.
        #expect(view.handle(.debounceElapsed(generation: second)) == [])
        #expect(view.onlineInFlight == first)
        _ = view.handle(.key(.text("i")))
        let third = view.generation
        #expect(view.handle(.debounceElapsed(generation: third)) == [])
        // The first's answer is stale and dropped; the latest query goes online then, the one between never.
        let next = view.handle(.reply(.online(generation: first), Self.places([(12, "Zuni")], online: "ok")))
        #expect(next == [.send("search", SearchView.searchArguments("zuri", online: true), .online(generation: third))])
        #expect(view.onlineInFlight == third)
        #expect(Self.names(view).isEmpty)
        #expect(view.handle(.reply(.online(generation: third), Self.places([(10, "Zürich")], online: "ok"))) == [])
        #expect(view.onlineInFlight == nil)
    }

    @Test func aFailedOnlineSearchIsSaid() {
        var view = Self.connected()
        _ = view.handle(.key(.text("zu")))
        _ = view.handle(.reply(.offline(generation: view.generation), Self.places([(11, "Zug")])))
        _ = view.handle(
            .reply(.online(generation: view.generation), Self.places([(11, "Zug")], online: "failed: timeout")))
        #expect(view.onlineNote?.contains("failed: timeout") == true)
        #expect(Self.names(view) == ["Zug"])
    }

    @Test func enterSelectsTheCityAndItsLocationEndsTheView() {
        var view = Self.connected()
        _ = view.handle(.key(.text("zu")))
        _ = view.handle(.reply(.offline(generation: view.generation), Self.places([(10, "Zürich"), (11, "Zug")])))
        _ = view.handle(.key(.down))
        guard case .city(let zug)? = view.selected else {
            Issue.record("no city selected")
            return
        }
        #expect(view.handle(.key(.enter)) == [.send("select", ["city": .number(11)], .select(zug))])
        let location = JSONValue.object([("class", .string("LOCATION")), ("city", .string("Zug"))])
        #expect(view.handle(.reply(.select(zug), location)) == [.finish(reply: location)])
    }

    @Test func enterOnCurrentLocationAsksForHere() {
        var view = Self.connected()
        #expect(view.handle(.key(.enter)) == [.send("here", [:], .here)])
    }

    @Test func movingStaysWithinTheListAndSkipsHeaders() {
        var view = Self.connected()
        _ = view.handle(.key(.up))
        #expect(view.selected == .here)
        for _ in 0..<10 { _ = view.handle(.key(.down)) }
        guard case .city(let last)? = view.selected else {
            Issue.record("no city selected")
            return
        }
        #expect(last.name == "Paris")
    }

    @Test func ctrlSSavesAndARefusalIsShown() {
        var view = Self.connected()
        _ = view.handle(.key(.down))
        guard case .city(let tokyo)? = view.selected else {
            Issue.record("no city selected")
            return
        }
        #expect(
            view.handle(.key(.save)) == [.send("saved", ["action": .string("add"), "city": .number(1)], .save(tokyo))])
        _ = view.handle(.reply(.save(tokyo), Self.places([(1, "Tokyo")], className: "SAVED")))
        #expect(view.notice == "Saved Tokyo.")
        #expect(Self.names(view).contains("# Saved cities"))
        let refusal = JSONValue.object([
            ("class", .string("ERROR")), ("code", .string("not-permitted")), ("message", .string("not allowed")),
        ])
        _ = view.handle(.reply(.save(tokyo), refusal))
        #expect(view.notice == "not allowed")
    }

    @Test func ctrlUClearsAndEscapeOrCtrlCLeave() {
        var view = Self.connected()
        _ = view.handle(.key(.text("zug")))
        #expect(view.handle(.key(.clearLine)) == [])
        #expect(view.query == "")
        #expect(Self.names(view).first == "here")
        #expect(view.handle(.key(.escape)) == [.finish(reply: nil)])
        #expect(view.handle(.key(.interrupt)) == [.finish(reply: nil)])
    }

    @Test func theDaemonGoingAwayKeepsTheQueryAndComingBackSearchesAgain() {
        var view = Self.connected()
        _ = view.handle(.key(.text("zu")))
        _ = view.handle(.daemonLost("it closed the connection"))
        #expect(view.daemonGone)
        #expect(view.notice?.contains("breezed went away") == true)
        // Typing goes on; nothing is sent while breezed is away, Enter does nothing.
        #expect(view.handle(.key(.text("g"))) == [])
        #expect(view.query == "zug")
        #expect(view.handle(.key(.enter)) == [])
        let actions = view.handle(.connected)
        #expect(
            actions.contains(
                .send("search", SearchView.searchArguments("zug", online: false), .offline(generation: view.generation))
            ))
        #expect(!view.daemonGone)
    }

    @Test func textFromTheDaemonIsEscapedAndAPlaceWithoutAnIdLeftOut() {
        let reply = JSONValue.object([
            (
                "places",
                .array([
                    .object([("city", .string("Evil\u{1B}[2J")), ("geoname_id", .number(5))]),
                    .object([("city", .string("No id"))]),
                    .object([("city", .string("Fraction")), ("geoname_id", .number(2.5))]),
                ])
            )
        ])
        let cities = SearchView.cities(in: reply, online: false)
        #expect(cities.map(\.name) == ["Evil\\x1b[2J"])
    }
}

/// The screen drawn for a view: columns fitted to the width, the selection marked, colour only when asked.
@Suite struct SearchScreenTests {
    static func plain(_ screen: String) -> [String] {
        // The lines as a terminal shows them, escape sequences removed.
        var text = ""
        var inSequence = false
        for scalar in screen.unicodeScalars {
            if inSequence {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inSequence = false }
                continue
            }
            if scalar == "\u{1B}" {
                inSequence = true
                continue
            }
            text.unicodeScalars.append(scalar)
        }
        return text.components(separatedBy: "\r\n")
    }

    static func view(columns: Int, rows: Int) -> SearchView {
        var view = SearchViewTests.connected()
        _ = view.handle(.resized(columns: columns, rows: rows))
        return view
    }

    @Test(arguments: [(40, 10), (80, 24), (132, 50)])
    func everyLineFitsTheWidthAndTheScreenTheHeight(columns: Int, rows: Int) {
        let lines = Self.plain(SearchScreen.draw(Self.view(columns: columns, rows: rows), color: false))
        #expect(lines.count == rows)
        for line in lines { #expect(DisplayWidth.columns(of: line) <= columns, "\(line)") }
        #expect(lines[0] == "Search: ")
        #expect(lines[2].hasPrefix("> Use current location"))
        #expect(lines.last?.hasPrefix("Up/Down move") == true)
    }

    @Test func withoutColourThereAreNoColourSequences() {
        let screen = SearchScreen.draw(Self.view(columns: 80, rows: 24), color: false)
        #expect(!screen.contains("\u{1B}[7m"))
        #expect(!screen.contains("\u{1B}[1m") && !screen.contains("\u{1B}[0m"))
        let colour = SearchScreen.draw(Self.view(columns: 80, rows: 24), color: true)
        #expect(colour.contains("\u{1B}[7m"))
    }

    @Test func aTinyTerminalIsToldSo() {
        let lines = Self.plain(SearchScreen.draw(Self.view(columns: 19, rows: 4), color: false))
        #expect(lines.first?.hasPrefix("Terminal too small") == true)
    }

    @Test(arguments: [("Zürich", 6), ("東京", 4), ("e\u{301}", 1), ("abc", 3)])
    func displayWidthCountsColumns(text: String, columns: Int) {
        #expect(DisplayWidth.columns(of: text) == columns)
    }

    @Test func fittingCutsWideTextWithinItsColumns() {
        let fitted = SearchScreen.fitted("東京都東京都東京都", 7)
        #expect(DisplayWidth.columns(of: fitted) == 7)
        #expect(fitted.contains("…"))
        #expect(SearchScreen.grouped(8_804_190) == "8,804,190")
        #expect(SearchScreen.grouped(999) == "999")
    }

    @Test func theSelectionScrollsIntoSight() {
        var view = SearchView()
        _ = view.handle(.resized(columns: 80, rows: 8))
        _ = view.handle(.connected)
        _ = view.handle(.key(.text("ci")))
        let cities = (1...30).map { ($0, "City \($0)") }
        _ = view.handle(.reply(.offline(generation: view.generation), SearchViewTests.places(cities)))
        for _ in 0..<20 { _ = view.handle(.key(.down)) }
        let lines = Self.plain(SearchScreen.draw(view, color: false))
        #expect(lines.contains { $0.hasPrefix("> City 21 ") }, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("  City 1 ") })
    }
}
