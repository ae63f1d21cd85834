import BreezeCore
import BreezeGeoClue
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Another program on the system bus sends the GeoClue source's agent values no GeoClue would: out-of-range
/// numbers are answered (or refused) as values, never a crash.
@Suite(.serialized, .enabled(if: GeoClueRig.isAvailable, "needs root, geoclue-2.0, dbus and unshare"))
struct HostileBusPeerTests {
    /// The bus name of this process's connection other than `peer`: the source's, once it has connected.
    static func sourceBusName(_ peer: BusConnection) async throws -> String? {
        let reply = try await peer.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames", timeout: 5)
        guard case .array(_, let names)? = reply.first else { return nil }
        for case .string(let name) in names where name.hasPrefix(":") && name != peer.uniqueName {
            let pid = try? await peer.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                [.string(name)], timeout: 5)
            if pid?.first?.uint64 == UInt64(getpid()) { return name }
        }
        return nil
    }

    @Test func anAccuracyLevelBeyondUInt32IsClampedNotATrap() async throws {
        let rig = try await GeoClueRig()
        rig.fix(46.4929, 7.5607)
        var configuration = GeoClueSource.Configuration()
        configuration.busAddress = rig.busAddress
        configuration.callTimeout = 2
        configuration.accuracyLevel = 6
        let source = GeoClueSource(configuration: configuration)
        let recorder = EventRecorder<LocationSourceEvent>()
        let listening = Task { for await event in source.events() { recorder.append(event) } }
        #expect(await recorder.wait(timeout: 20) { $0.contains(.connected) }, "\(recorder.all)")

        let peer = try await BusConnection.system(address: rig.busAddress)
        let name = try #require(try await Self.sourceBusName(peer))
        for requested: DBusValue in [.uint64(1 << 40), .uint64(.max), .int64(-1), .double(.infinity), .uint32(.max)] {
            let answer = try await peer.call(
                name, "/org/freedesktop/GeoClue2/Agent", "org.freedesktop.GeoClue2.Agent", "AuthorizeApp",
                [.string("hostile"), requested], timeout: 5)
            #expect(answer == [DBusValue.bool(true), .uint32(6)], "for \(requested)")
        }
        let modest = try await peer.call(
            name, "/org/freedesktop/GeoClue2/Agent", "org.freedesktop.GeoClue2.Agent", "AuthorizeApp",
            [.string("modest"), .uint32(4)], timeout: 5)
        #expect(modest == [DBusValue.bool(true), .uint32(4)])
        // A call's timeout is a Double: none may trap on its way to milliseconds.
        for timeout in [Double.nan, .infinity, -1, 1e300] {
            _ = try? await peer.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", timeout: timeout)
        }
        let id = try await peer.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", timeout: .nan)
        #expect(id.first?.string?.isEmpty == false)
        peer.close()
        source.stop()
        listening.cancel()
        await rig.stop()
    }
}

/// Location objects GeoClue never sends, read as values.
@Suite struct HostileLocationPropertiesTests {
    static let base: [String: DBusValue] = ["Latitude": .variant(.double(46.4929)), "Longitude": .variant(.double(7.5607))]

    @Test(arguments: [
        ("Altitude", DBusValue.double(.infinity)), ("Altitude", .double(.nan)), ("Altitude", .double(1e12)),
        ("Speed", .double(.infinity)), ("Speed", .double(.nan)),
        ("Heading", .double(720)), ("Heading", .double(.infinity)), ("Heading", .double(.nan)),
        ("Accuracy", .double(.infinity)),
    ])
    func anOutOfRangeExtraIsLeftOut(name: String, value: DBusValue) throws {
        var properties = Self.base
        properties[name] = .variant(value)
        let fix = try #require(GeoClueSource.fix(fromLocation: properties))
        #expect(fix.altitude == nil && fix.speed == nil && fix.track == nil && fix.horizontalAccuracy == nil)
    }

    @Test func aTimestampBeyondAnyClockIsLeftOut() throws {
        var properties = Self.base
        properties["Timestamp"] = .variant(.structure([.uint64(.max), .uint64(.max)]))
        let fix = try #require(GeoClueSource.fix(fromLocation: properties))
        #expect(fix.receiverTime == nil)
    }
}

