import BreezeCore
import BreezeGeoClue
import BreezeTestSupport
import Foundation
import Testing

/// The D-Bus client against a real dbus-daemon: calls, errors as values, timeouts, an exported object.
@Suite(.serialized, .enabled(if: GeoClueRig.isAvailable, "needs root, dbus and unshare"))
struct BusConnectionTests {
    @Test func callsTheBusAndGetsTypedErrorsAsValues() async throws {
        let rig = try await GeoClueRig(geoclue: false)
        let bus = try await BusConnection.system(address: rig.busAddress)
        #expect(bus.uniqueName.hasPrefix(":"))
        let names = try await bus.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames", timeout: 5)
        guard case .array(let signature, let list)? = names.first else { Issue.record("ListNames: \(names)"); return }
        #expect(signature == "s")
        #expect(list.contains(.string(bus.uniqueName)))

        let missing = await thrownError(BusError.self) {
            try await bus.call("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
                               "org.freedesktop.GeoClue2.Manager", "GetClient", timeout: 5)
        }
        #expect(missing?.isServiceUnknown == true, "\(String(describing: missing))")

        let badPath = await thrownError(BusError.self) {
            try await bus.call("org.freedesktop.DBus", "not a path", "org.freedesktop.DBus", "GetId", timeout: 5)
        }
        #expect(badPath?.name == BusError.badReplyName)
        bus.close()
        let closed = await thrownError(BusError.self) {
            try await bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", timeout: 5)
        }
        #expect(closed?.name == BusError.disconnectedName)
        await rig.stop()
    }

    @Test func anExportedObjectAnswersWithValuesOrErrors() async throws {
        let rig = try await GeoClueRig(geoclue: false)
        let server = try await BusConnection.system(address: rig.busAddress)
        let client = try await BusConnection.system(address: rig.busAddress)
        server.export(path: "/test/Object") { message in
            switch message.member {
            case "Echo": .success(message.arguments)
            default: .failure(BusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: message.member))
            }
        }
        let values: [DBusValue] = [.string("Adelboden"), .uint32(8), .variant(.double(46.5)),
                                   DBusValue.properties([("MaxAccuracyLevel", .uint32(8))]), .array(signature: "s", [])]
        let echoed = try await client.call(server.uniqueName, "/test/Object", "test.Object", "Echo", values, timeout: 5)
        #expect(echoed == values)
        let unknown = await thrownError(BusError.self) {
            try await client.call(server.uniqueName, "/test/Object", "test.Object", "Fly", [], timeout: 5)
        }
        #expect(unknown?.name == "org.freedesktop.DBus.Error.UnknownMethod")
        let nowhere = await thrownError(BusError.self) {
            try await client.call(server.uniqueName, "/test/Nowhere", "test.Object", "Echo", [], timeout: 5)
        }
        #expect(nowhere?.name == "org.freedesktop.DBus.Error.UnknownObject")
        server.close()
        client.close()
        await rig.stop()
    }

    @Test func aLocationOfTheWrongShapeGivesNoFix() {
        #expect(GeoClueSource.fix(fromLocation: [:]) == nil)
        #expect(GeoClueSource.fix(fromLocation: ["Latitude": .variant(.string("46.5")), "Longitude": .variant(.double(7.5))]) == nil)
        #expect(GeoClueSource.fix(fromLocation: ["Latitude": .variant(.double(146.5)), "Longitude": .variant(.double(7.5))]) == nil)
        let fix = GeoClueSource.fix(fromLocation: [
            "Latitude": .variant(.double(46.4929)), "Longitude": .variant(.double(7.5607)),
            "Accuracy": .variant(.double(20)), "Altitude": .variant(.double(-Double.greatestFiniteMagnitude)),
            "Speed": .variant(.double(-1)), "Heading": .variant(.double(-1)),
            "Timestamp": .variant(.structure([.uint64(1_780_000_000), .uint64(500_000)])),
        ])
        #expect(fix?.coordinate == Coordinate(latitude: 46.4929, longitude: 7.5607))
        #expect(fix?.horizontalAccuracy == 20)
        #expect(fix?.altitude == nil && fix?.speed == nil && fix?.track == nil, "GeoClue's unknown markers are no values")
        #expect(fix?.receiverTime == 1_780_000_000.5)
        #expect(fix?.mode == .twoD)
        #expect(fix?.source == .geoclue)
    }
}
