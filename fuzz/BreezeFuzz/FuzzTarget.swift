import BreezeCLI
import BreezeCore
import BreezeDaemon
import BreezeGPSD
import BreezeGeoClue
import BreezeProtocol
import Dispatch
import Foundation
import Synchronization

/// One input boundary of breezed, as a function of arbitrary bytes that must return without trapping, hanging or
/// growing without bound: what libFuzzer drives (`scripts/fuzz`) and what the regression tests replay
/// (`fuzz/corpus/<name>/`, `fuzz/regressions/<name>/`).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Bytes from a socket peer: framing, JSON, request decoding, and the daemon's answer against the real index.
    case `protocol`
    /// breezed.conf: the INI parser and every setting's value.
    case config
    /// state.json: the state file reader and its validation (and the writer, for what the reader accepts).
    case state
    /// Bytes from gpsd: its line framing, the strict report parser and the fix filter, one line after another.
    case gpsd
    /// Values from the bus: a GeoClue Location object's properties, and the value accessors.
    case dbus
    /// Lines from breezed, as breezectl renders them for each command.
    case breezectl
    /// Web answers, each through its decoder: Open-Meteo air quality, pollen, archive and forecast (climate and the
    /// weather), geocoding;
    /// Google Pollen; Nominatim.
    case airQuality = "air-quality"
    case openMeteoPollen = "open-meteo-pollen"
    case googlePollen = "google-pollen"
    case climateDays = "climate-days"
    case weather
    case geocoding
    case nominatim
    /// A data cache file, read as each dataset's entry.
    case cache = "data-cache"

    /// Feeds one input. `root` is the repository (for the places index).
    public func run(_ bytes: UnsafeRawBufferPointer, root: String) {
        switch self {
        case .protocol: ProtocolFuzzing.shared(root: root).feed(Array(bytes))
        case .config: ConfigFuzzing.feed(Array(bytes))
        case .state: StateFuzzing.feed(Array(bytes))
        case .gpsd: GPSDFuzzing.feed(Array(bytes))
        case .dbus: DBusFuzzing.feed(Array(bytes))
        case .breezectl: ReplyFuzzing.feed(Array(bytes))
        case .airQuality: WebFuzzing.air(Array(bytes))
        case .openMeteoPollen: WebFuzzing.openMeteoPollen(Array(bytes))
        case .googlePollen: WebFuzzing.googlePollen(Array(bytes))
        case .climateDays: WebFuzzing.climateDays(Array(bytes))
        case .weather: WebFuzzing.weather(Array(bytes))
        case .geocoding: WebFuzzing.geocoding(Array(bytes))
        case .nominatim: WebFuzzing.nominatim(Array(bytes))
        case .cache: WebFuzzing.cache(Array(bytes))
        }
    }

    /// Removes what the targets left on disk (the protocol target's state folder).
    public static func finish() {
        ProtocolFuzzing.finish()
    }
}

/// The configuration file: parsed, then applied over the defaults.
enum ConfigFuzzing {
    static func feed(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        guard let file = try? ConfigurationFile(text: text, name: "fuzz.conf") else { return }
        var configuration = DaemonConfiguration()
        try? configuration.apply(file)
    }
}

/// Socket bytes through the line framer, the request parser and the daemon's request handling. One daemon for the
/// whole run (offline, no location sources, its state in a temporary folder), as a peer that may change state.
final class ProtocolFuzzing: Sendable {
    private static let instance = Mutex<ProtocolFuzzing?>(nil)
    private let daemon: Daemon
    private let folder: String

    static func shared(root: String) -> ProtocolFuzzing {
        instance.withLock { instance in
            if let instance { return instance }
            let made = ProtocolFuzzing(root: root)
            instance = made
            return made
        }
    }

    private init(root: String) {
        // tmpfs where there is one: the daemon syncs every change to disk, and the fuzzer makes many.
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        folder = "\(base)/breeze-fuzz-\(getpid())"
        var configuration = DaemonConfiguration()
        configuration.offline = true
        configuration.gpsd = nil
        configuration.geoclue = false
        configuration.placesIndex = root + "/data/places.bin"
        configuration.stateDirectory = folder + "/state"
        configuration.cacheDirectory = folder + "/cache"
        do {
            daemon = try Daemon(configuration: configuration, logger: Logger(level: .error))
        } catch {
            // The harness itself is broken (no index): nothing can be fuzzed.
            fatalError("cannot start the daemon to fuzz: \(error)")
        }
    }

    static func finish() {
        instance.withLock { instance in
            if let folder = instance?.folder { try? FileManager.default.removeItem(atPath: folder) }
            instance = nil
        }
    }

    func feed(_ bytes: [UInt8]) {
        var framer = LineFramer(maximumLength: 4_096)
        for output in framer.push(bytes) + framer.push([0x0A]) {
            guard case .line(let text) = output, let request = try? ProtocolRequest.parse(text) else { continue }
            _ = request.changesState
            for key in ["query", "limit", "city", "latitude", "longitude", "enabled", "action", "classes"] {
                _ = try? request.string(key)
                _ = try? request.number(key)
                _ = try? request.integer(key, in: Int.min...Int.max)
                _ = try? request.bool(key)
            }
            answer(request)
        }
    }

    /// Waits for the daemon's answer, by the path the socket server takes (the fuzzer calls in synchronously). Each
    /// line of it must be JSON answering the request (its id, or none when it had none); any other stops the fuzzer,
    /// as a crash does, with the request that showed it.
    private func answer(_ request: ProtocolRequest) {
        let done = DispatchSemaphore(value: 0)
        let daemon = daemon
        let messages = Mutex<[JSONValue]>([])
        Task.detached {
            let answer = await daemon.handle(request, peerUID: 0)
            messages.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        for message in messages.withLock({ $0 }) where message["id"] != request.id {
            fatalError("the answer to \(request.body.encodedLine()) does not carry its id: \(message)")
        }
    }
}
