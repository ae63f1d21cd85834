import BreezeFuzz
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
    func everySavedInputRunsWithoutACrash(target: FuzzTarget) throws {
        let files = Self.inputs(target)
        #expect(files.count >= 5, "fuzz/corpus/\(target.rawValue) holds the target's seeds: \(files.count) found")
        for file in files {
            let data = try #require(FileManager.default.contents(atPath: file), "cannot read \(file)")
            data.withUnsafeBytes { target.run($0, root: Self.root) }
        }
        FuzzTarget.finish()
    }
}
