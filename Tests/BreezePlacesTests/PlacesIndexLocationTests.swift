import BreezePlaces
import Foundation
import Testing

/// Where the index is looked for without a path: the same places Foundation's path arithmetic named.
@Suite struct PlacesIndexLocationTests {
    @Test func theCandidatesAreTheExplicitFileThenBesideTheProgramThenTheSystemsThenTheSourceTree() {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let prefix = executable.deletingLastPathComponent().deletingLastPathComponent()
        let sourceTree = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("data/places.bin").path
        #expect(PlacesIndexLocation.candidates(environment: ["BREEZE_PLACES_INDEX": "/tmp/x.bin"]) == [
            "/tmp/x.bin", prefix.appendingPathComponent("share/breeze/places.bin").path,
            "/usr/local/share/breeze/places.bin", "/usr/share/breeze/places.bin", sourceTree,
        ])
        #expect(PlacesIndexLocation.candidates(environment: ["BREEZE_PLACES_INDEX": ""]).count == 4)
        #expect(PlacesIndexLocation.sourceTreeIndex == sourceTree)
    }

    @Test func theFirstCandidateThatExistsIsFound() {
        #expect(PlacesIndexLocation.find(environment: ["BREEZE_PLACES_INDEX": #filePath]) == #filePath)
        let missing = #filePath + ".missing"
        #expect(PlacesIndexLocation.find(environment: ["BREEZE_PLACES_INDEX": missing]) != missing)
    }
}
