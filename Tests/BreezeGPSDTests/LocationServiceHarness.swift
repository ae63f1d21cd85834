import BreezeCore
import BreezeGPSD
import BreezeLocation
import BreezePlaces
import BreezeTestSupport
import Foundation

/// A location service on a gpsd source (`LocationServiceRig`), with what the source sent recorded too.
struct LocationServiceHarness {
    let rig: LocationServiceRig
    /// What the gpsd source sent the service, used or not.
    let source: TappedSource

    /// - Parameter backoff: quick by default, so replays are not missed while the test's gpsd starts.
    init(
        port: Int, fixTimeout: Duration = .seconds(30),
        backoff: RetryBackoff = RetryBackoff(initial: 0.05, maximum: 0.25), unchangedFixInterval: Duration = .zero
    ) {
        source = TappedSource(GPSDSource(
            address: GPSDAddress(host: "127.0.0.1", port: port), backoff: backoff,
            unchangedFixInterval: unchangedFixInterval))
        rig = LocationServiceRig(sources: [source], fixTimeout: fixTimeout)
    }

    var service: LocationService { rig.service }
    var recorder: EventRecorder<LocationServiceEvent> { rig.recorder }
    var positions: [LocationUpdate] { rig.positions }
    var permissions: [LocationPermission] { rig.permissions }

    func stop() async { await rig.stop() }
}

/// The descriptors of this process that are TCP sockets connected to `port` on this machine.
///
/// Counting every open descriptor would also count what other tests running at the same time open (pipes to
/// children, sockets): the sockets to one gpsd port are this test's alone.
func socketsConnected(toPort port: Int) -> Int {
    let inodes = Set(TCPTableEntry.all().filter { $0.remotePort == port }.map(\.inode))
    let folder = "/proc/self/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { name in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(name)"),
            target.hasPrefix("socket:[")
        else { return false }
        return inodes.contains(String(target.dropFirst(8).dropLast()))
    }.count
}
