// swift-tools-version:6.0
import PackageDescription

#if canImport(Glibc)
    import Glibc
#endif

/// The installable build's link (the Makefile sets BREEZE_LINK after trying what the toolchain can do): `lld` links
/// breezed with lld and packed relocations, `static` links breezectl as a static executable. Every other build,
/// and a toolchain that cannot, links the ordinary way.
let installableLink = Set(
    (getenv("BREEZE_LINK").map { String(cString: $0) } ?? "").split(separator: ",").map(String.init))

/// The soname of the libgps that the installed gps.h belongs to, which breezed loads late (CGPS/shim.h): libgps-dev's
/// libgps.so links to the library itself, libgps.so.N.x.y, whose soname is libgps.so.N. Nil where none is found;
/// the shim then knows the sonames of the gpsd versions tried.
let libgpsSoname: String? = {
    let folders = [
        "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/arm-linux-gnueabihf", "/usr/lib64",
        "/usr/lib", "/usr/local/lib",
    ]
    for folder in folders {
        var target = [UInt8](repeating: 0, count: 256)
        // The buffer is handed to readlink as the pointer it declares: the manifest, built by Debian's Swift 6.0.3 for
        // arm64, crashed (SIGSEGV) when the array went in through `&target` (scripts/check-arm64, under emulation).
        let count = target.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                readlink(folder + "/libgps.so", $0, 255)
            }
        }
        guard count > 0 else { continue }
        let parts =
            String(decoding: target[..<count], as: UTF8.self).split(separator: "/").last?.split(separator: ".") ?? []
        if parts.count >= 3, parts[0] == "libgps", parts[1] == "so", let major = Int(parts[2]) {
            return "libgps.so.\(major)"
        }
    }
    return nil
}()

let package = Package(
    name: "Breeze",
    products: [
        .library(name: "BreezeCore", targets: ["BreezeCore"]),
        .library(name: "BreezePlaces", targets: ["BreezePlaces"]),
        .library(name: "BreezeGPSD", targets: ["BreezeGPSD"]),
        .library(name: "BreezeProtocol", targets: ["BreezeProtocol"]),
        .library(name: "BreezeLocation", targets: ["BreezeLocation"]),
    ],
    targets: [
        // C libraries from Debian, each a module map and one shim header.
        // libgps, loaded with dlopen when the gpsd source first connects: see CGPS/shim.h.
        .systemLibrary(
            name: "CGPS",
            path: "CGPS",
            providers: [.apt(["libgps-dev"])]
        ),
        // libdbus-1, loaded with dlopen when GeoClue is first tried: see CDBus/shim.h.
        .systemLibrary(name: "CDBus", path: "CDBus"),
        .systemLibrary(name: "CEpoll", path: "CEpoll"),
        // The Swift runtime's global-executor hook: see Sources/BreezeSystem/TaskPool+GlobalExecutor.swift.
        .systemLibrary(name: "CConcurrencyHooks", path: "CConcurrencyHooks"),
        // libcurl, loaded with dlopen at the first fetch: see CCurl/shim.h.
        .systemLibrary(
            name: "CCurl",
            path: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CMosquitto",
            path: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),

        // Domain: values, AQI, units, geodesy, the permission state machine. No I/O.
        .target(name: "BreezeCore"),

        // Adapters: each knows only the domain.
        .target(name: "BreezePlaces", dependencies: ["BreezeCore", "BreezeSystem"]),
        // System plumbing the adapters share: the system-call funnel, a wake-up pipe, the task pool. No domain
        // knowledge.
        .target(name: "BreezeSystem", dependencies: ["CConcurrencyHooks"]),

        .target(
            name: "BreezeGPSD", dependencies: ["BreezeCore", "BreezeSystem", "CGPS"],
            swiftSettings: libgpsSoname.map { [.unsafeFlags(["-Xcc", "-DCGPS_LIBRARY=\"\($0)\""])] } ?? []),
        .target(name: "BreezeProtocol", dependencies: ["BreezeCore"]),
        .target(name: "BreezeServer", dependencies: ["BreezeCore", "BreezeProtocol", "BreezeSystem", "CEpoll"]),
        .target(name: "BreezeWeb", dependencies: ["BreezeCore", "CCurl"]),
        .target(name: "BreezeGeoClue", dependencies: ["BreezeCore", "BreezeSystem", "CDBus"]),
        // MQTT: a broker connection kept up by a thread of its own, publishing retained state (libmosquitto, loaded
        // with dlopen when first used: see CMosquitto/shim.h).
        .target(name: "BreezeMQTT", dependencies: ["BreezeCore", "BreezeSystem", "CMosquitto"]),

        // fetchAllData: the datasets for the current place, fetched, cached and refreshed.
        .target(name: "BreezeData", dependencies: ["BreezeCore", "BreezeWeb", "BreezeSystem"]),

        // Composition: the location service decides where we are, from the sources and the places index.
        .target(name: "BreezeLocation", dependencies: ["BreezeCore", "BreezePlaces", "BreezeSystem"]),

        // The composition root: the daemon's wiring, configuration, state store and systemd integration.
        .target(
            name: "BreezeDaemon",
            dependencies: [
                "BreezeCore", "BreezeSystem", "BreezePlaces", "BreezeGPSD", "BreezeGeoClue", "BreezeLocation",
                "BreezeWeb",
                "BreezeData",
                "BreezeProtocol", "BreezeServer", "BreezeMQTT", "CEpoll",
            ]),
        // Linked with lld, its relative relocations packed (DT_RELR, glibc 2.36): the Swift runtime and Foundation
        // linked in statically carry about 40,000 pointers to relocate at each start; as RELA entries (930 KiB) the
        // loader read them all and they stayed resident.
        .executableTarget(
            name: "breezed", dependencies: ["BreezeDaemon", "BreezeSystem"],
            linkerSettings: installableLink.contains("lld")
                ? [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])] : []),
        // breezectl: the command line, over the socket protocol.
        // It reads the places index itself only for `search` and `lookup` while breezed is not running, and loads
        // libmosquitto (BreezeMQTT) only for `fleet`.
        .target(
            name: "BreezeCLI",
            dependencies: ["BreezeCore", "BreezePlaces", "BreezeProtocol", "BreezeSystem", "BreezeMQTT"]),
        // Linked as a static executable: no dynamic loader, no shared libraries to map and relocate at each run.
        .executableTarget(
            name: "breezectl", dependencies: ["BreezeCLI"],
            linkerSettings: installableLink.contains("static") ? [.unsafeFlags(["-static-executable"])] : []),

        // Tools.
        .executableTarget(
            name: "breeze-places-build",
            dependencies: ["BreezePlaces"],
            path: "Sources/breeze-places-build"
        ),
        .executableTarget(
            name: "places-bench",
            dependencies: ["BreezePlaces", "BreezeProtocol", "BreezeTestSupport"],
            path: "bench/PlacesBench"
        ),

        .executableTarget(
            name: "server-bench",
            dependencies: ["BreezeServer", "BreezeProtocol", "BreezeTestSupport", "CEpoll"],
            path: "bench/ServerBench"
        ),
        .executableTarget(
            name: "daemon-bench",
            dependencies: ["BreezeTestSupport"],
            path: "bench/DaemonBench"
        ),
        .executableTarget(
            name: "mqtt-bench",
            dependencies: ["BreezeMQTT", "BreezeTestSupport"],
            path: "bench/MQTTBench"
        ),
        .executableTarget(
            name: "soak-bench",
            dependencies: ["BreezeSystem", "BreezeTestSupport"],
            path: "bench/SoakBench"
        ),
        .executableTarget(
            name: "lean-bench",
            dependencies: ["BreezeTestSupport"],
            path: "bench/LeanBench"
        ),
        .executableTarget(
            name: "gpsd-idle-bench",
            dependencies: ["BreezeGPSD", "BreezeTestSupport"],
            path: "bench/GPSDIdle"
        ),

        // Fuzzing: every input boundary as a function of bytes; `scripts/fuzz` runs them under libFuzzer.
        .target(
            name: "BreezeFuzz",
            dependencies: [
                "BreezeDaemon", "BreezeProtocol", "BreezeGPSD", "BreezeGeoClue", "BreezeCLI", "BreezeCore", "BreezeWeb",
                "BreezeData",
            ],
            path: "fuzz/BreezeFuzz"),
        .executableTarget(name: "breeze-fuzz", dependencies: ["BreezeFuzz"], path: "fuzz/breeze-fuzz"),

        .testTarget(name: "BreezeCoreTests", dependencies: ["BreezeCore"]),
        .testTarget(name: "BreezeFuzzTests", dependencies: ["BreezeFuzz", "BreezeTestSupport"]),
        .testTarget(
            name: "BreezeDaemonUnitTests",
            dependencies: ["BreezeDaemon", "BreezeCore", "BreezeProtocol", "BreezeGPSD", "BreezeWeb"]),
        .testTarget(name: "BreezeSystemTests", dependencies: ["BreezeSystem", "BreezeTestSupport"]),
        .testTarget(name: "BreezeMQTTTests", dependencies: ["BreezeMQTT", "BreezeTestSupport"]),
        .testTarget(
            name: "BreezeLocationTests",
            dependencies: ["BreezeLocation", "BreezePlaces", "BreezeCore", "BreezeTestSupport"]),
        .testTarget(
            name: "BreezeCLITests",
            dependencies: ["BreezeCLI", "BreezeCore", "BreezeProtocol", "BreezeSystem", "BreezeTestSupport"]),
        .testTarget(
            name: "BreezeDaemonTests", dependencies: ["BreezeDaemon", "BreezeCore", "BreezeTestSupport"],
            exclude: ["Expected"]),
        .testTarget(
            name: "BreezeGeoClueTests",
            dependencies: ["BreezeGeoClue", "BreezeLocation", "BreezePlaces", "BreezeGPSD", "BreezeTestSupport"]),
        .testTarget(name: "BreezeWebTests", dependencies: ["BreezeWeb", "BreezeCore", "BreezeTestSupport"]),
        .testTarget(
            name: "BreezeDataTests",
            dependencies: ["BreezeData", "BreezeWeb", "BreezeCore", "BreezeProtocol", "BreezeTestSupport"]),
        .testTarget(name: "BreezeProtocolTests", dependencies: ["BreezeProtocol"]),
        .testTarget(
            name: "BreezeServerTests",
            dependencies: ["BreezeServer", "BreezeProtocol", "BreezeSystem", "BreezeTestSupport"]),
        .testTarget(name: "BreezePlacesTests", dependencies: ["BreezePlaces", "BreezeTestSupport"]),
        .target(
            name: "BreezeTestSupport",
            dependencies: ["BreezeCore", "BreezeGeoClue", "BreezeLocation", "BreezePlaces", "BreezeSystem"],
            path: "Tests/BreezeTestSupport"),
        .testTarget(
            name: "BreezeGPSDTests",
            dependencies: ["BreezeGPSD", "BreezeLocation", "BreezePlaces", "BreezeSystem", "BreezeTestSupport"]),
    ]
)
