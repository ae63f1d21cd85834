import BreezeCore
import Testing

/// Every state × every event, against a table written out by hand.
@Suite struct LocationPermissionMachineTests {
    static let refused = PermissionReason(code: .accessDenied, message: "GeoClue refused breezed", hint: "allow it")
    static let policy = PermissionReason(code: .policy, message: "not allowed to act as agent", hint: "whitelist")
    static let lost = PermissionReason(code: .lost, message: "gpsd went away", hint: "start gpsd")
    static let lostGeoClue = PermissionReason(code: .lost, message: "GeoClue went away", hint: "start geoclue")

    /// The states, each reached from a fresh machine by real events.
    static let states: [(name: String, machine: LocationPermissionMachine)] = [
        ("ND", LocationPermissionMachine()),
        ("Rq:g", reached(by: [.requestStarted(.gpsd)])),
        ("Rq:c", reached(by: [.requestStarted(.geoclue)])),
        ("Au:g", reached(by: [.fixReceived(.gpsd)])),
        ("Au:c", reached(by: [.fixReceived(.geoclue)])),
        ("Den", reached(by: [.accessDenied(.geoclue, refused)])),
        ("Res", reached(by: [.accessRestricted(.geoclue, policy)])),
        ("Un", reached(by: [.sourceLost(.gpsd, lost)])),
        ("Un:c", reached(by: [.sourceLost(.geoclue, lostGeoClue)])),
        ("Off", LocationPermissionMachine(enabled: false)),
    ]

    static let events: [LocationPermissionEvent] = [
        .requestStarted(.gpsd), .requestStarted(.geoclue), .sourceConnected(.gpsd), .sourceConnected(.geoclue),
        .fixReceived(.gpsd), .fixReceived(.geoclue), .accessDenied(.geoclue, refused),
        .accessRestricted(.geoclue, policy), .sourceLost(.gpsd, lost), .timedOut(.gpsd, seconds: 30),
        .switchedOff, .switchedOn, .sourceLost(.geoclue, lostGeoClue), .timedOut(.geoclue, seconds: 30),
    ]

    /// Next state for each state (rows) and event (columns, in the order of `events`).
    /// "Un:wait" is no fix yet; "Un:gone" is a fix that stopped coming; a trailing "C" marks GeoClue's reason.
    /// "Un" is gpsd lost, "Un:c" GeoClue lost: gpsd ranks above GeoClue, so GeoClue's trouble does not replace gpsd's.
    static let expected: [String: [String]] = [
        //         rs:g    rs:c    sc:g    sc:c    fx:g    fx:c    denied  restr.  lost:g     timeout:g  off    on      lost:c      timeout:c
        "ND":   ["Rq:g", "Rq:c", "Rq:g", "Rq:c", "Au:g", "Au:c", "Den", "Res", "Un:lost", "Un:wait", "Off", "ND", "Un:lostC", "Un:waitC"],
        "Rq:g": ["Rq:g", "Rq:c", "Rq:g", "Rq:c", "Au:g", "Au:c", "Den", "Res", "Un:lost", "Un:wait", "Off", "Rq:g", "Un:lostC", "Un:waitC"],
        "Rq:c": ["Rq:g", "Rq:c", "Rq:g", "Rq:c", "Au:g", "Au:c", "Den", "Res", "Un:lost", "Un:wait", "Off", "Rq:c", "Un:lostC", "Un:waitC"],
        "Au:g": ["Au:g", "Au:g", "Au:g", "Au:g", "Au:g", "Au:c", "Au:g", "Au:g", "Un:lost", "Un:gone", "Off", "Au:g", "Au:g", "Au:g"],
        "Au:c": ["Au:c", "Au:c", "Au:c", "Au:c", "Au:g", "Au:c", "Den", "Res", "Au:c", "Au:c", "Off", "Au:c", "Un:lostC", "Un:goneC"],
        "Den":  ["Rq:g", "Rq:c", "Rq:g", "Rq:c", "Au:g", "Au:c", "Den", "Res", "Un:lost", "Un:wait", "Off", "Den", "Un:lostC", "Un:waitC"],
        "Res":  ["Rq:g", "Rq:c", "Rq:g", "Rq:c", "Au:g", "Au:c", "Den", "Res", "Un:lost", "Un:wait", "Off", "Res", "Un:lostC", "Un:waitC"],
        "Un":   ["Un:lost", "Un:lost", "Rq:g", "Rq:c", "Au:g", "Au:c", "Den", "Res", "Un:lost", "Un:wait", "Off", "Un:lost", "Un:lost", "Un:lost"],
        "Un:c": ["Un:lostC", "Un:lostC", "Rq:g", "Rq:c", "Au:g", "Au:c", "Den", "Res", "Un:lost", "Un:wait", "Off", "Un:lostC", "Un:lostC", "Un:waitC"],
        "Off":  ["Off", "Off", "Off", "Off", "Off", "Off", "Off", "Off", "Off", "Off", "Off", "ND", "Off", "Off"],
    ]

    /// The actions of each transition, in order, for each state (rows) and event (columns, in the order of `events`):
    /// "ann" announce, "fallback" use the fallback city, "stop" the sources; "" nothing.
    static let expectedActions: [String: [String]] = [
        "ND":   ["ann", "ann", "ann", "ann", "ann", "ann", "ann", "ann", "ann", "ann", "ann stop", "", "ann", "ann"],
        "Rq:g": ["", "ann", "", "ann", "ann", "ann", "ann", "ann", "ann", "ann", "ann stop", "", "ann", "ann"],
        "Rq:c": ["ann", "", "ann", "", "ann", "ann", "ann", "ann", "ann", "ann", "ann stop", "", "ann", "ann"],
        "Au:g": ["", "", "", "", "", "ann", "", "", "ann fallback", "ann fallback", "ann stop fallback", "", "", ""],
        "Au:c": ["", "", "", "", "ann", "", "ann fallback", "ann fallback", "", "", "ann stop fallback", "",
                 "ann fallback", "ann fallback"],
        "Den":  ["ann", "ann", "ann", "ann", "ann", "ann", "", "ann", "ann", "ann", "ann stop", "", "ann", "ann"],
        "Res":  ["ann", "ann", "ann", "ann", "ann", "ann", "ann", "", "ann", "ann", "ann stop", "", "ann", "ann"],
        "Un":   ["", "", "ann", "ann", "ann", "ann", "ann", "ann", "", "ann", "ann stop", "", "", ""],
        "Un:c": ["", "", "ann", "ann", "ann", "ann", "ann", "ann", "ann", "ann", "ann stop", "", "", "ann"],
        "Off":  ["", "", "", "", "", "", "", "", "", "", "", "ann", "", ""],
    ]

    static func reached(by events: [LocationPermissionEvent]) -> LocationPermissionMachine {
        var machine = LocationPermissionMachine()
        for event in events { _ = machine.handle(event) }
        return machine
    }

    static func token(_ action: LocationPermissionAction) -> String {
        switch action {
        case .announce: "ann"
        case .stopSources: "stop"
        case .useFallbackLocation: "fallback"
        }
    }

    static func token(_ state: LocationPermission) -> String {
        switch state {
        case .notDetermined: "ND"
        case .requesting(.gpsd): "Rq:g"
        case .requesting(.geoclue): "Rq:c"
        case .authorized(.gpsd): "Au:g"
        case .authorized(.geoclue): "Au:c"
        case .denied(let reason) where reason.code == .switchedOff: "Off"
        case .denied: "Den"
        case .restricted: "Res"
        case .unavailable(let reason): unavailableToken(reason)
        }
    }

    static func unavailableToken(_ reason: PermissionReason) -> String {
        let whose = reason.message.hasPrefix("GeoClue") ? "C" : ""
        if reason.code == .lost { return "Un:lost" + whose }
        if reason.message.contains("has sent no fix") { return "Un:gone" + whose }
        if reason.message.contains("no location yet") { return "Un:wait" + whose }
        return "Un:?"
    }

    @Test func theTableCoversEveryStateAndEvent() {
        #expect(Self.expected.count == Self.states.count)
        #expect((Self.states.count, Self.events.count) == (10, 14), "the arguments of transition(stateIndex:eventIndex:)")
        #expect(Self.expected.values.allSatisfy { $0.count == Self.events.count })
        #expect(Set(Self.expectedActions.keys) == Set(Self.expected.keys))
        #expect(Self.expectedActions.values.allSatisfy { $0.count == Self.events.count })
        #expect(Self.states.map { Self.token($0.machine.state) } ==
            ["ND", "Rq:g", "Rq:c", "Au:g", "Au:c", "Den", "Res", "Un:lost", "Un:lostC", "Off"])
    }

    @Test(arguments: 0..<10, 0..<14)
    func transition(stateIndex: Int, eventIndex: Int) throws {
        let (name, start) = Self.states[stateIndex]
        let event = Self.events[eventIndex]
        var machine = start
        let actions = machine.handle(event)
        let want = try #require(Self.expected[name])[eventIndex]
        #expect(Self.token(machine.state) == want, "\(name) + \(event)")

        let wantActions = try #require(Self.expectedActions[name])[eventIndex]
        #expect(actions.map { Self.token($0) }.joined(separator: " ") == wantActions, "\(name) + \(event)")
        if actions.first.map({ if case .announce = $0 { true } else { false } }) == true {
            #expect(actions.first == .announce(machine.state), "announces the state it moved to")
        }

        // Every state a person can see explains itself; where they can act, it says how.
        #expect(!machine.state.message.isEmpty)
        if let reason = machine.state.reason {
            #expect(!reason.message.isEmpty)
            #expect(reason.hint?.isEmpty == false)
        }
    }

    @Test func switchingOffAndOnAgainStartsOver() {
        var machine = Self.reached(by: [.fixReceived(.gpsd)])
        #expect(machine.handle(.switchedOff) == [.announce(.denied(.switchedOff)), .stopSources, .useFallbackLocation])
        #expect(machine.handle(.fixReceived(.gpsd)) == [])
        #expect(machine.handle(.switchedOn) == [.announce(.notDetermined)])
        #expect(machine.handle(.requestStarted(.gpsd)) == [.announce(.requesting(.gpsd))])
        #expect(machine.handle(.fixReceived(.gpsd)) == [.announce(.authorized(.gpsd))])
    }

    @Test func steadyFixesCostNothing() {
        var machine = Self.reached(by: [.fixReceived(.gpsd)])
        #expect(machine.handle(.fixReceived(.gpsd)) == [])
    }

    @Test func timeoutReasonsNameTheSourceAndTheWait() throws {
        var machine = Self.reached(by: [.requestStarted(.geoclue)])
        _ = machine.handle(.timedOut(.geoclue, seconds: 20))
        let reason = try #require(machine.state.reason as PermissionReason?)
        #expect(reason.code == .noFix)
        #expect(reason.message == "GeoClue has no location yet after 20 s")
        #expect(machine.state.name == "unavailable")
    }

    /// A source that fails again for the same reason moves only its next try: the new time is announced (clients
    /// show "retrying in N s"), and apart from it the state is the same one.
    @Test func aRetryThatFailsAgainAnnouncesOnlyItsNextTry() {
        var machine = Self.reached(by: [.requestStarted(.gpsd)])
        let first = Self.lost.retrying(at: 1_000)
        let second = Self.lost.retrying(at: 1_002)
        #expect(machine.handle(.sourceLost(.gpsd, first)) == [.announce(.unavailable(first))])
        #expect(machine.handle(.requestStarted(.gpsd)) == [])
        #expect(machine.handle(.sourceLost(.gpsd, second)) == [.announce(.unavailable(second))])
        #expect(machine.state.reason?.retryAt == 1_002)
        #expect(machine.state.withoutRetryTime == .unavailable(Self.lost))
        #expect(LocationPermission.unavailable(first).withoutRetryTime == LocationPermission.unavailable(second).withoutRetryTime)
        #expect(machine.handle(.sourceLost(.gpsd, second)) == [])
    }

    /// gpsd and GeoClue both down, each retrying: the state stays with gpsd's reason (the higher-ranked source)
    /// instead of taking turns. GeoClue's trouble shows while gpsd has none to show, and gpsd's replaces it.
    @Test func twoSourcesRetryingDoNotTakeTurns() {
        let gpsdDown = PermissionReason(code: .notRunning, message: "gpsd is not running")
        let noBus = PermissionReason(code: .notRunning, message: "cannot reach GeoClue")
        var machine = Self.reached(by: [.requestStarted(.gpsd), .requestStarted(.geoclue)])
        #expect(machine.handle(.sourceLost(.gpsd, gpsdDown.retrying(at: 1))) == [.announce(.unavailable(gpsdDown.retrying(at: 1)))])
        #expect(machine.handle(.sourceLost(.geoclue, noBus.retrying(at: 2))) == [])
        #expect(machine.handle(.timedOut(.geoclue, seconds: 30)) == [])
        #expect(machine.handle(.sourceLost(.gpsd, gpsdDown.retrying(at: 3))) == [.announce(.unavailable(gpsdDown.retrying(at: 3)))])
        #expect(machine.handle(.sourceLost(.geoclue, noBus.retrying(at: 4))) == [])
        #expect(machine.state.reason?.message == "gpsd is not running")

        var geoclueFirst = Self.reached(by: [.sourceLost(.geoclue, noBus)])
        #expect(geoclueFirst.state.reason?.message == "cannot reach GeoClue")
        #expect(geoclueFirst.handle(.sourceLost(.gpsd, gpsdDown)) == [.announce(.unavailable(gpsdDown))])
        #expect(geoclueFirst.handle(.sourceLost(.geoclue, noBus)) == [])
        // Once another state came between, GeoClue's trouble is news again.
        _ = geoclueFirst.handle(.sourceConnected(.geoclue))
        #expect(geoclueFirst.handle(.timedOut(.geoclue, seconds: 30)).count == 1)

        // gpsd reached but without a fix is gpsd's trouble too: what the user can do about it (a view of the sky)
        // is shown over GeoClue's, until gpsd's state changes.
        var gpsdSilent = Self.reached(by: [.sourceConnected(.gpsd), .timedOut(.gpsd, seconds: 30)])
        #expect(gpsdSilent.state.reason?.code == .noFix)
        #expect(gpsdSilent.handle(.sourceLost(.geoclue, noBus)) == [])
        #expect(gpsdSilent.handle(.sourceLost(.gpsd, gpsdDown)) == [.announce(.unavailable(gpsdDown))])
        #expect(gpsdSilent.handle(.sourceLost(.geoclue, noBus)) == [])
        _ = gpsdSilent.handle(.sourceConnected(.gpsd))
        #expect(gpsdSilent.handle(.sourceLost(.geoclue, noBus)) == [.announce(.unavailable(noBus))])
    }

    @Test func stateNamesAreTheWireVocabulary() {
        let names = Self.states.map { $0.machine.state.name }
        #expect(Set(names) == ["not_determined", "requesting", "authorized", "denied", "restricted", "unavailable"])
    }
}
