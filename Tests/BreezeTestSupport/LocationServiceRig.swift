import BreezeCore
import BreezeLocation
import BreezePlaces

/// A location service over the given sources and the committed places index, running until `stop`, its events
/// recorded as they come.
public final class LocationServiceRig: Sendable {
    /// The committed places index, opened once for every rig.
    public static let index = try! PlacesIndex(path: PlacesIndexLocation.sourceTreeIndex)

    public let service: LocationService
    public let recorder = EventRecorder<LocationServiceEvent>()
    private let task: Task<Void, Never>

    public init(
        sources: [any LocationSource], movementThreshold: Double = 250,
        fixTimeout: Duration = .seconds(30), enabled: Bool = true
    ) {
        let service = LocationService(
            sources: sources, geocoder: ReverseGeocoder(index: Self.index),
            movementThreshold: movementThreshold, fixTimeout: fixTimeout, locationEnabled: enabled)
        self.service = service
        let recorder = recorder
        task = Task {
            async let listening: Void = {
                for await event in service.events { recorder.append(event) }
            }()
            await service.run()
            await listening
        }
    }

    /// Stops the service and waits until it and the reading of its events have ended.
    public func stop() async {
        task.cancel()
        await task.value
    }

    public var events: [LocationServiceEvent] { recorder.all }

    public var positions: [LocationUpdate] {
        events.compactMap { if case .position(let update) = $0 { update } else { nil } }
    }

    public var permissions: [LocationPermission] {
        events.compactMap { if case .permission(let state) = $0 { state } else { nil } }
    }
}
