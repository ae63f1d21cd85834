import BreezeFuzz
import BreezeTestSupport
import Foundation
import Testing

/// Every seed and every input a fuzzer ever crashed on, replayed through its target: a crash here is a regression.
@Suite struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The files of `fuzz/corpus/<target>` and `fuzz/regressions/<target>`.
    static func inputs(_ target: FuzzTarget) -> [String] {
        ["corpus", "regressions"].flatMap { kind -> [String] in
            let folder = "\(root)/fuzz/\(kind)/\(target.rawValue)"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return names.sorted().map { "\(folder)/\($0)" }
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySavedInputRunsWithoutACrash(target: FuzzTarget) async throws {
        let files = Self.inputs(target)
        #expect(files.count >= 5, "fuzz/corpus/\(target.rawValue) holds the target's seeds: \(files.count) found")
        // On a thread of its own: the protocol target waits for the daemon's answer as libFuzzer's caller does,
        // which must not hold one of the few threads the daemon's tasks run on.
        let unreadable = await onDedicatedThread { () -> [String] in
            var unreadable: [String] = []
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    unreadable.append(file)
                    continue
                }
                data.withUnsafeBytes { target.run($0, root: Self.root) }
            }
            FuzzTarget.finish()
            return unreadable
        }
        #expect(unreadable.isEmpty)
    }
}
