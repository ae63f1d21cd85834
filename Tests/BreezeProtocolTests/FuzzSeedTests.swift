import BreezeProtocol
import Foundation
import Testing

/// The seeds in fuzz/corpus/protocol go through what a fuzz target calls: framing, parsing, every argument
/// accessor. Each must come out as a value or a `ProtocolError`; a trap fails the whole run.
@Suite struct FuzzSeedTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz/corpus/protocol")

    static var seeds: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func thereAreTwentyToFortySeeds() {
        #expect((20...40).contains(Self.seeds.count))
    }

    @Test(arguments: seeds)
    func aSeedIsAnsweredWithoutTrapping(name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
        var framer = LineFramer(maximumLength: 65_536)
        let outputs = framer.push(bytes)
        #expect(outputs.count == 1, "one line per seed")
        for output in outputs {
            guard case .line(let text) = output else { continue }
            guard let request = try? ProtocolRequest.parse(text) else { continue }
            for key in ["query", "limit", "city", "latitude", "longitude", "enabled", "action", "classes"] {
                _ = try? request.string(key)
                _ = try? request.number(key)
                _ = try? request.integer(key, in: Int.min...Int.max)
                _ = try? request.bool(key)
            }
            _ = request.changesState
        }
    }
}
