import BreezeCore
import BreezeProtocol
import Testing

@Suite struct ProtocolRequestTests {
    @Test func parsesACommandWithItsId() throws {
        let request = try ProtocolRequest.parse(#"{"command":"lookup","id":7,"latitude":-33.8688,"longitude":151.2093}"#)
        #expect(request.command == .lookup)
        #expect(request.id == .number(7))
        #expect(try request.number("latitude") == -33.8688)
        #expect(!request.changesState)
    }

    @Test(arguments: [
        ("{\"command\":\"fly\"}", ProtocolError.Code.unknownCommand),
        ("{\"id\":1}", .badArgument),
        ("[\"status\"]", .malformedJSON),
        ("status", .malformedJSON),
        ("{\"command\":\"status\",\"id\":[1]}", .badArgument),
        ("{\"command\":5}", .badArgument),
    ])
    func explainsBadRequests(line: String, code: ProtocolError.Code) {
        do {
            _ = try ProtocolRequest.parse(line)
            Issue.record("\(line) parsed")
        } catch {
            #expect(error.code == code)
            #expect(!error.message.isEmpty)
        }
    }

    /// Past the JSON, a line's id answers with its error: an unknown command or a missing one is still a request.
    @Test(arguments: [
        (#"{"command":"fly","id":4}"#, ProtocolError.Code.unknownCommand, JSONValue.number(4)),
        (#"{"id":"q"}"#, .badArgument, .string("q")),
        (#"{"command":5,"id":6}"#, .badArgument, .number(6)),
    ])
    func errorsAfterTheJSONCarryTheLinesId(line: String, code: ProtocolError.Code, id: JSONValue) throws {
        do {
            _ = try ProtocolRequest.parse(line)
            Issue.record("\(line) parsed")
        } catch {
            #expect(error.code == code)
            #expect(error.requestID == id)
            let message = try JSONValue.parse(ProtocolMessage.error(error).encoded())
            #expect(message["id"] == id, "\(message.encoded())")
        }
    }

    /// A line that is not an object, or whose id cannot be echoed, has no id to answer with.
    @Test(arguments: [#"{"command":"fly","id":[4]}"#, #"[{"id":4}]"#, #"{"command":"fly","id":4"#])
    func anUnusableIdIsNotEchoed(line: String) throws {
        do {
            _ = try ProtocolRequest.parse(line)
            Issue.record("\(line) parsed")
        } catch {
            #expect(error.requestID == nil)
            #expect(try JSONValue.parse(ProtocolMessage.error(error).encoded())["id"] == nil)
        }
    }

    static let watchable = ["PERMISSION", "LOCATION", "AIR", "POLLEN", "CLIMATE", "WEATHER"]

    @Test(arguments: [
        #"{"command":"watch","classes":["BOGUS"]}"#, #"{"command":"watch","classes":["LOCATION","BOGUS"]}"#,
        #"{"command":"watch","classes":[]}"#, #"{"command":"watch","classes":"LOCATION"}"#,
        #"{"command":"watch","classes":[7]}"#, #"{"command":"watch","classes":{"LOCATION":true}}"#,
    ])
    func unknownOrMalformedWatchClassesAreBadArguments(line: String) throws {
        let request = try ProtocolRequest.parse(line)
        do {
            _ = try request.classes("classes", known: Self.watchable)
            Issue.record("\(line) accepted")
        } catch {
            #expect(error.code == .badArgument)
            #expect(error.message.contains("LOCATION, AIR"), "names the classes there are: \(error.message)")
        }
    }

    @Test func watchClassesAreTakenInAnyCase() throws {
        let request = try ProtocolRequest.parse(#"{"command":"watch","classes":["location","Air","AIR"]}"#)
        #expect(try request.classes("classes", known: Self.watchable) == ["LOCATION", "AIR"])
        #expect(try ProtocolRequest.parse(#"{"command":"watch"}"#).classes("classes", known: Self.watchable) == nil)
    }

    @Test func argumentsOfTheWrongTypeAreBadArguments() throws {
        let request = try ProtocolRequest.parse(#"{"command":"search","query":42}"#)
        #expect(throws: ProtocolError(.badArgument, "\"query\" must be a string")) { try request.string("query") }
        #expect(throws: ProtocolError(.badArgument, "search needs \"limit\"")) { try request.number("limit") }
        #expect(try request.number("limit", default: 10) == 10)
    }

    @Test(arguments: [
        ("{\"command\":\"select\",\"query\":\"Bern\"}", true), ("{\"command\":\"here\"}", true),
        ("{\"command\":\"location\",\"enabled\":false}", true), ("{\"command\":\"refresh\"}", true),
        ("{\"command\":\"saved\"}", false), ("{\"command\":\"saved\",\"action\":\"list\"}", false),
        ("{\"command\":\"saved\",\"action\":\"add\",\"id\":1}", true), ("{\"command\":\"status\"}", false),
        ("{\"command\":\"watch\"}", false), ("{\"command\":\"search\",\"query\":\"pa\"}", false),
    ])
    func knowsWhichCommandsChangeState(line: String, changes: Bool) throws {
        #expect(try ProtocolRequest.parse(line).changesState == changes)
    }
}

@Suite struct ProtocolMessageTests {
    let adelboden = Place(
        id: 2661881, name: "Adelboden", admin1: "Bern", country: "Switzerland", countryCode: "CH",
        population: 3541, coordinate: Coordinate(latitude: 46.4929, longitude: 7.5607))

    @Test func locationCarriesTheContractFields() throws {
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 46.498319, longitude: 7.567402), mode: .threeD, altitude: 1_353.2,
            horizontalAccuracy: 4.5, speed: 12.5, track: 271.3, receivedAt: .now, receivedWallTime: 1_780_000_000.25,
            source: .gpsd)
        let message = ProtocolMessage.location(
            place: adelboden, coordinate: fix.coordinate, fix: .exact(fix: fix, distance: 812.4), source: "gpsd",
            standIn: nil, permission: .authorized(.gpsd), precise: true)
        let parsed = try JSONValue.parse(message.encoded())
        #expect(parsed["class"] == .string("LOCATION"))
        #expect(parsed["name"] == .string("Adelboden, Switzerland"))
        #expect(parsed["city"] == .string("Adelboden"))
        #expect(parsed["country"] == .string("Switzerland"))
        #expect(parsed["country_code"] == .string("CH"))
        #expect(parsed["latitude"] == .number(46.498319))
        #expect(parsed["longitude"] == .number(7.567402))
        #expect(parsed["source"] == .string("gpsd"))
        #expect(parsed["state"] == .string("authorized"))
        #expect(parsed["time"] == .string("2026-05-28T20:26:40.250Z"))
        #expect(parsed["distance_m"] == .number(812))
        // Since proto_minor 5: what the fix was, and that the position is live and exact.
        #expect(parsed["stand_in"] == .null)
        #expect(parsed["mode"] == .number(3))
        #expect(parsed["altitude_m"] == .number(1_353.2))
        #expect(parsed["speed_mps"] == .number(12.5))
        #expect(parsed["heading_deg"] == .number(271.3))
        #expect(parsed["precise"] == .bool(true))
        #expect(parsed["precise_hint"] == nil)
    }

    @Test func aCoarseLocationSaysSoAndHowToGetExactOnes() throws {
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 46.498319, longitude: 7.567402), mode: .twoD, altitude: 1_353.2,
            horizontalAccuracy: 4.5, speed: 12.6, track: 356, receivedAt: .now, receivedWallTime: 1_780_000_000.25,
            source: .gpsd)
        let coarse = CoarseLocation(fix: fix, distance: 812.4)
        let message = ProtocolMessage.location(
            place: adelboden, coordinate: coarse.coordinate, fix: coarse, source: "gpsd", standIn: .lastFix,
            permission: .unavailable(PermissionReason(code: .noFix, message: "no fix")),
            precise: false, preciseHint: "join the group breeze")
        #expect(message["latitude"] == .number(46.5))
        // Neither height nor motion for a peer that gets city-level positions.
        #expect(message["altitude_m"] == .null)
        #expect(message["speed_mps"] == .null)
        #expect(message["heading_deg"] == .null)
        #expect(message["mode"] == .number(2))
        #expect(message["time"] == .string("2026-05-28T20:26:00.000Z"))
        #expect(message["stand_in"] == .string("last-fix"))
        #expect(message["precise"] == .bool(false))
        #expect(message["precise_hint"] == .string("join the group breeze"))
    }

    @Test func permissionCarriesReasonAndHint() throws {
        let parsed = try JSONValue.parse(ProtocolMessage.permission(.denied(.switchedOff)).encoded())
        #expect(parsed["state"] == .string("denied"))
        #expect(parsed["reason"] == .string("switched-off"))
        #expect(parsed["hint"]?.stringValue?.contains("breezectl location on") == true)
        #expect(parsed["retry_at"] == nil)
        let lost = PermissionReason(code: .notRunning, message: "gpsd is not running on 127.0.0.1:2947")
        let retrying = try JSONValue.parse(ProtocolMessage.permission(.unavailable(lost.retrying(at: 1_780_000_000.25))).encoded())
        #expect(retrying["reason"] == .string("not-running"))
        #expect(retrying["retry_at"] == .string("2026-05-28T20:26:40.250Z"))
    }

    @Test func placeCarriesItsDistance() throws {
        let parsed = try JSONValue.parse(ProtocolMessage.place(adelboden, distance: 1_234.4).encoded())
        #expect(parsed["class"] == .string("PLACE"))
        #expect(parsed["distance_m"] == .number(1_234))
        #expect(parsed["geoname_id"] == .number(2661881))
        // "id" belongs to the request a place answers: a reply keeps the place's own id apart from it.
        let reply = try JSONValue.parse(ProtocolMessage.reply(ProtocolMessage.place(adelboden, distance: nil), id: .number(7)).encoded())
        #expect(reply["id"] == .number(7))
        #expect(reply["geoname_id"] == .number(2661881))
    }

    @Test func repliesAndErrorsEchoTheRequestId() throws {
        let error = ProtocolMessage.error(ProtocolError(.notPermitted, "select needs the breeze group"), id: .string("a"))
        #expect(error.encoded() == #"{"class":"ERROR","code":"not-permitted","message":"select needs the breeze group","id":"a"}"#)
        let reply = ProtocolMessage.reply(ProtocolMessage.version(release: "0.1.0"), id: .number(3))
        #expect(reply.encoded() == #"{"class":"VERSION","release":"0.1.0","proto_major":1,"proto_minor":12,"id":3}"#)
    }

    @Test func locationNamesItsPlaceByGeoNamesIdOrNull() throws {
        let message = ProtocolMessage.location(
            place: adelboden, coordinate: adelboden.coordinate, fix: nil, source: "manual", standIn: .fallback,
            permission: .notDetermined, precise: true)
        #expect(message["geoname_id"] == .number(2661881))
        #expect(message["name"] == .string("Adelboden, Switzerland"))
        let none = try JSONValue.parse(ProtocolMessage.noLocation(permission: .notDetermined).encoded())
        #expect(none["geoname_id"] == .null)
        #expect(none["name"] == .null)
        #expect(none["state"] == .string("not_determined"))
    }
}

@Suite struct ProtocolRequestIntegerTests {
    @Test(arguments: [
        #"{"command":"search","limit":1e19}"#, #"{"command":"search","limit":-1e19}"#,
        #"{"command":"search","limit":2.5}"#, #"{"command":"search","limit":0}"#, #"{"command":"search","limit":101}"#,
        #"{"command":"search","limit":"10"}"#, #"{"command":"search","limit":9.3e18}"#,
    ])
    func anIntegerOutOfRangeOrNotWholeIsABadArgumentNamingTheField(line: String) throws {
        let request = try ProtocolRequest.parse(line)
        do {
            _ = try request.integer("limit", default: 10, in: 1...100)
            Issue.record("\(line) accepted")
        } catch {
            #expect(error.code == .badArgument)
            #expect(error.message.contains("\"limit\""))
        }
    }

    @Test func aWholeNumberInRangeIsItsInteger() throws {
        #expect(try ProtocolRequest.parse(#"{"command":"search","limit":25}"#).integer("limit", in: 1...100) == 25)
        #expect(try ProtocolRequest.parse(#"{"command":"search"}"#).integer("limit", default: 10, in: 1...100) == 10)
        #expect(try ProtocolRequest.parse(#"{"command":"saved","city":2661552}"#).integer("city", in: 1...Int(Int32.max))
            == 2661552)
    }

    @Test func aBooleanArgumentIsCheckedByType() throws {
        let request = try ProtocolRequest.parse(#"{"command":"location","enabled":"yes"}"#)
        #expect(throws: ProtocolError(.badArgument, "\"enabled\" must be true or false")) { try request.bool("enabled") }
        #expect(try ProtocolRequest.parse(#"{"command":"location","enabled":false}"#).bool("enabled") == false)
    }
}

/// The command's name is taken in any case: ASCII names are compared as words, any other the way Unicode lowercases.
@Suite struct ProtocolRequestCommandNameTests {
    @Test func everyCommandIsFoundInAnyCase() throws {
        for command in ProtocolRequest.Command.allCases {
            for name in [command.rawValue, command.rawValue.uppercased(), command.rawValue.prefix(1).uppercased()
                + command.rawValue.dropFirst()]
            {
                #expect(try ProtocolRequest.parse(#"{"command":"\#(name)"}"#).command == command, "\(name)")
            }
        }
    }

    @Test(arguments: [
        "versions", "versio", "", "lookup ", " lookup", "look-up", "statuses", "refresh!", "searchXYZ", "v",
        "search\u{0}", "s\u{E9}arch", "LOOKUP\u{301}", "watch@", "WATCH[",
    ])
    func aNameThatIsNoCommandIsUnknown(name: String) {
        #expect(throws: ProtocolError.self) {
            try ProtocolRequest.parse(JSONValue.object([("command", .string(name))]).encoded())
        }
    }

    /// Unicode lowercases the Kelvin sign to "k": a name that is not ASCII still goes the way it went before.
    @Test func aNameLowercasedByUnicodeIsStillFound() throws {
        #expect(try ProtocolRequest.parse(#"{"command":"LOO\u212AUP"}"#).command == .lookup)
    }
}
