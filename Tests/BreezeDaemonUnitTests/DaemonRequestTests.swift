import BreezeCore
import BreezeDaemon
import BreezeProtocol
import Foundation
import Testing

/// A daemon on the committed places index, offline, with no location sources: requests answered in process, as
/// the socket server hands them over for a trusted peer.
final class DaemonRig: Sendable {
    /// `data/places.bin`, found from this file's path.
    static let indexPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("data/places.bin").path

    let folder = TemporaryFolder()
    let daemon: Daemon

    init() throws {
        var configuration = DaemonConfiguration()
        configuration.offline = true
        configuration.gpsd = nil
        configuration.geoclue = false
        configuration.placesIndex = Self.indexPath
        configuration.stateDirectory = folder.path + "/state"
        configuration.cacheDirectory = folder.path + "/cache"
        daemon = try Daemon(configuration: configuration, logger: Logger(level: .error))
    }

    deinit { folder.remove() }

    /// The objects answering one request line.
    func ask(_ line: String) async throws -> [JSONValue] {
        await daemon.handle(try ProtocolRequest.parse(line), peerUID: 1_000)
    }

    /// The one object answering a request line.
    func answer(_ line: String) async throws -> JSONValue {
        let replies = try await ask(line)
        try #require(replies.count == 1, "\(replies.count) replies to \(line)")
        return replies[0]
    }

    /// The GeoNames ids of a PLACES reply, in order.
    static func ids(_ reply: JSONValue) -> [Int] {
        guard case .array(let places)? = reply["places"] else { return [] }
        return places.compactMap { $0["geoname_id"]?.numberValue.map { Int($0) } }
    }
}

@Suite struct DaemonRequestTests {
    static let bern = 2_661_552
    static let zurich = 2_657_896

    @Test func lookupNamesThePlaceAtAPositionWithItsDistance() async throws {
        let rig = try DaemonRig()
        let reply = try await rig.answer(#"{"command":"lookup","id":7,"latitude":46.94809,"longitude":7.44744}"#)
        #expect(reply["class"] == .string("PLACE"))
        #expect(reply["name"] == .string("Bern, Switzerland"))
        #expect(reply["geoname_id"] == .number(Double(Self.bern)))
        #expect(reply["country_code"] == .string("CH"))
        #expect(reply["distance_m"] == .number(0))
        #expect(reply["id"] == .number(7))
    }

    @Test(arguments: [
        (#"{"command":"lookup","latitude":91,"longitude":0}"#, "bad-argument"),
        (#"{"command":"lookup","latitude":0,"longitude":-180.5}"#, "bad-argument"),
        (#"{"command":"lookup","latitude":"north","longitude":0}"#, "bad-argument"),
        (#"{"command":"lookup","longitude":0}"#, "bad-argument"),
    ])
    func lookupRefusesAPositionOffTheEarth(line: String, code: String) async throws {
        let reply = try await DaemonRig().answer(line)
        #expect(reply["class"] == .string("ERROR"))
        #expect(reply["code"] == .string(code))
    }

    @Test func lookupAtTheEdgesOfTheRangeIsAnswered() async throws {
        let rig = try DaemonRig()
        for line in [#"{"command":"lookup","latitude":90,"longitude":180}"#,
                     #"{"command":"lookup","latitude":-90,"longitude":-180}"#] {
            #expect(try await rig.answer(line)["class"] == .string("PLACE"), "\(line)")
        }
    }

    @Test func popularListsTheTenCitiesInTheirOrder() async throws {
        let reply = try await DaemonRig().answer(#"{"command":"popular","id":"p"}"#)
        #expect(reply["class"] == .string("PLACES"))
        guard case .array(let places)? = reply["places"] else {
            Issue.record("no places in \(reply.encoded())")
            return
        }
        #expect(places.count == 10)
        #expect(places.compactMap { $0["country_code"]?.stringValue } == ["US", "US", "US", "GB", "FR", "JP", "DE", "CA", "AU", "AE"])
        #expect(places.first?["city"] == .string("New York City"))
        #expect(places.last?["city"] == .string("Dubai"))
        #expect(reply["id"] == .string("p"))
    }

    @Test func anOfflineSearchSaysSoAndHonoursItsLimit() async throws {
        let rig = try DaemonRig()
        let reply = try await rig.answer(#"{"command":"search","query":"  Bern ","limit":3}"#)
        #expect(reply["class"] == .string("PLACES"))
        #expect(reply["query"] == .string("Bern"))
        #expect(reply["online"] == .string("off"))
        let ids = DaemonRig.ids(reply)
        #expect(ids.count == 3)
        #expect(ids.first == Self.bern)
        let one = try await rig.answer(#"{"command":"search","query":"Bern","limit":1}"#)
        #expect(DaemonRig.ids(one) == [Self.bern])
    }

    @Test func aSearchThatAsksNotToGoOnlineIsAnsweredOffline() async throws {
        let rig = try DaemonRig()
        let offline = try await rig.answer(#"{"command":"search","query":"Bern","limit":3,"online":false}"#)
        #expect(offline["online"] == .string("off"))
        #expect(DaemonRig.ids(offline).first == Self.bern)
        let either = try await rig.answer(#"{"command":"search","query":"Bern","limit":3,"online":true}"#)
        #expect(DaemonRig.ids(either) == DaemonRig.ids(offline))
    }

    @Test(arguments: [
        #"{"command":"search","query":"Bern","online":"no"}"#, #"{"command":"search","query":"Bern","online":0}"#,
        #"{"command":"search","query":"B"}"#, #"{"command":"search","query":"   "}"#,
        #"{"command":"search","query":"Bern","limit":0}"#, #"{"command":"search","query":"Bern","limit":51}"#,
        #"{"command":"search","query":"Bern","limit":2.5}"#, #"{"command":"search"}"#,
    ])
    func aSearchOutsideItsBoundsIsABadArgument(line: String) async throws {
        let reply = try await DaemonRig().answer(line)
        #expect(reply["code"] == .string("bad-argument"), "\(reply.encoded())")
    }

    @Test func aSearchOfTwoCharactersFindsCities() async throws {
        let reply = try await DaemonRig().answer(#"{"command":"search","query":"Zu","limit":5}"#)
        #expect(reply["class"] == .string("PLACES"))
        #expect(DaemonRig.ids(reply).count == 5)
    }

    @Test func aSearchOfFiftyIsAllowed() async throws {
        let reply = try await DaemonRig().answer(#"{"command":"search","query":"San","limit":50}"#)
        #expect(DaemonRig.ids(reply).count == 50)
    }

    @Test func selectByIdShowsTheCityAndHereGoesBack() async throws {
        let rig = try DaemonRig()
        let selected = try await rig.answer(#"{"command":"select","id":1,"city":2661552}"#)
        #expect(selected["class"] == .string("LOCATION"))
        #expect(selected["name"] == .string("Bern, Switzerland"))
        #expect(selected["source"] == .string("manual"))
        #expect(selected["latitude"] == .number(46.94809))
        #expect(selected["id"] == .number(1))
        let here = try await rig.answer(#"{"command":"here"}"#)
        #expect(here["class"] == .string("LOCATION"))
        #expect(here["name"] == .null)
    }

    @Test func selectByQueryTakesTheFirstMatch() async throws {
        let reply = try await DaemonRig().answer(#"{"command":"select","query":"Zurich"}"#)
        #expect(reply["city"] == .string("Zürich"))
        #expect(reply["country_code"] == .string("CH"))
    }

    @Test(arguments: [
        (#"{"command":"select"}"#, "bad-argument"),
        (#"{"command":"select","query":"Z"}"#, "bad-argument"),
        (#"{"command":"select","query":"Qxqxqxqxqx"}"#, "not-found"),
        (#"{"command":"select","city":1}"#, "not-found"),
        (#"{"command":"select","city":0}"#, "bad-argument"),
        (#"{"command":"select","city":-5}"#, "bad-argument"),
    ])
    func selectNamesWhatIsWrong(line: String, code: String) async throws {
        let reply = try await DaemonRig().answer(line)
        #expect(reply["class"] == .string("ERROR"))
        #expect(reply["code"] == .string(code), "\(reply.encoded())")
    }

    @Test func savedCitiesAreAddedOnceListedAndRemoved() async throws {
        let rig = try DaemonRig()
        #expect(DaemonRig.ids(try await rig.answer(#"{"command":"saved"}"#)) == [])
        let added = try await rig.answer(#"{"command":"saved","action":"add","city":2661552}"#)
        #expect(added["class"] == .string("SAVED"))
        #expect(DaemonRig.ids(added) == [Self.bern])
        _ = try await rig.answer(#"{"command":"saved","action":"add","city":2657896}"#)
        // The same city again is not a second entry.
        let again = try await rig.answer(#"{"command":"saved","action":"add","city":2661552}"#)
        #expect(DaemonRig.ids(again) == [Self.bern, Self.zurich])
        let listed = try await rig.answer(#"{"command":"saved","action":"list"}"#)
        #expect(listed["class"] == .string("SAVED"))
        #expect(DaemonRig.ids(listed) == [Self.bern, Self.zurich])
        let removed = try await rig.answer(#"{"command":"saved","action":"remove","city":2661552}"#)
        #expect(DaemonRig.ids(removed) == [Self.zurich])
        let missing = try await rig.answer(#"{"command":"saved","action":"remove","city":2661552}"#)
        #expect(missing["code"] == .string("not-found"))
        #expect(missing["message"] == .string("no saved city with id 2661552"))
    }

    @Test func savedCitiesSurviveARestart() async throws {
        let rig = try DaemonRig()
        _ = try await rig.answer(#"{"command":"saved","action":"add","city":2657896}"#)
        var configuration = DaemonConfiguration()
        configuration.offline = true
        configuration.gpsd = nil
        configuration.geoclue = false
        configuration.placesIndex = DaemonRig.indexPath
        configuration.stateDirectory = rig.folder.path + "/state"
        let second = try Daemon(configuration: configuration, logger: Logger(level: .error))
        let listed = await second.handle(try ProtocolRequest.parse(#"{"command":"saved"}"#), peerUID: 0)
        #expect(listed.count == 1)
        #expect(DaemonRig.ids(listed[0]) == [Self.zurich])
    }

    @Test func savedCitiesStopAtTheirLimit() async throws {
        let rig = try DaemonRig()
        // The first cities of a search wide enough to find more than the limit.
        let found = DaemonRig.ids(try await rig.answer(#"{"command":"search","query":"San","limit":50}"#))
            + DaemonRig.ids(try await rig.answer(#"{"command":"search","query":"Santa","limit":50}"#))
            + DaemonRig.ids(try await rig.answer(#"{"command":"search","query":"Saint","limit":50}"#))
        var distinct: [Int] = []
        for id in found where !distinct.contains(id) { distinct.append(id) }
        try #require(distinct.count > 100)
        for id in distinct.prefix(100) {
            let reply = try await rig.answer(#"{"command":"saved","action":"add","city":\#(id)}"#)
            try #require(reply["class"] == .string("SAVED"), "\(reply.encoded())")
        }
        let refused = try await rig.answer(#"{"command":"saved","action":"add","city":\#(distinct[100])}"#)
        #expect(refused["code"] == .string("bad-argument"))
        #expect(refused["message"] == .string("at most 100 saved cities; remove one first"))
        // A city already saved is no addition, at the limit too.
        let again = try await rig.answer(#"{"command":"saved","action":"add","city":\#(distinct[0])}"#)
        #expect(DaemonRig.ids(again).count == 100)
    }

    @Test func anUnknownSavedActionIsABadArgument() async throws {
        let reply = try await DaemonRig().answer(#"{"command":"saved","action":"clear"}"#)
        #expect(reply["code"] == .string("bad-argument"))
        #expect(reply["message"] == .string("saved action must be list, add or remove, not \"clear\""))
    }

    @Test func theLocationSwitchAnswersWithThePermission() async throws {
        let rig = try DaemonRig()
        let off = try await rig.answer(#"{"command":"location","enabled":false}"#)
        #expect(off["class"] == .string("PERMISSION"))
        #expect(off["state"] == .string("denied"))
        #expect(off["reason"] == .string("switched-off"))
        let on = try await rig.answer(#"{"command":"location","enabled":true}"#)
        #expect(on["class"] == .string("PERMISSION"))
        #expect(on["state"] == .string("not_determined"))
        let bad = try await rig.answer(#"{"command":"location","enabled":"yes"}"#)
        #expect(bad["code"] == .string("bad-argument"))
    }

    @Test func refreshIsUnavailableOffline() async throws {
        let reply = try await DaemonRig().answer(#"{"command":"refresh","id":3}"#)
        #expect(reply["class"] == .string("ERROR"))
        #expect(reply["code"] == .string("unavailable"))
        #expect(reply["id"] == .number(3))
    }
}
