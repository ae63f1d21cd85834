import BreezeCore
import BreezePlaces
import BreezeTestSupport
import Foundation
import Testing

/// A damaged or foreign file gives a clear error or wrong answers, never a crash.
@Suite struct DamagedIndexTests {
    let good = SyntheticPlaces.bytes()

    func code(_ bytes: [UInt8]) -> PlacesIndexError.Code? {
        do {
            _ = try PlacesIndex(bytes: bytes)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func emptyOrForeignBytesAreNotAnIndex() {
        #expect(code([]) == .corrupt)
        #expect(code(Array("not an index at all, just some text".utf8)) == .corrupt)
        var wrongMagic = good
        wrongMagic[0] = UInt8(ascii: "X")
        #expect(code(wrongMagic) == .corrupt)
    }

    @Test func anotherFormatVersionIsSaidSo() {
        var newer = good
        newer[8] = 99
        #expect(code(newer) == .unsupportedVersion)
    }

    @Test(arguments: [16, 40, 100, 300, 1_000])
    func aTruncatedFileIsCorrupt(length: Int) {
        #expect(code(Array(good.prefix(length))) == .corrupt)
    }

    @Test func aSectionOutsideTheFileIsCorrupt() {
        var bad = good
        // The first directory entry's offset (bytes 24–31) pointed far past the end.
        for i in 24..<32 { bad[i] = 0xFF }
        #expect(code(bad) == .corrupt)
    }

    @Test func scrambledContentNeverCrashes() throws {
        var random = SplitMix64(seed: 3)
        let directoryEnd = 16 + 10 * 24
        var opened = 0
        var refusals: [PlacesIndexError.Code: Int] = [:]
        for _ in 0..<300 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let at = Int.random(in: directoryEnd..<bytes.count, using: &random)
                bytes[at] = UInt8.random(in: 0...255, using: &random)
            }
            let index: PlacesIndex
            do {
                index = try PlacesIndex(bytes: bytes)
            } catch {
                refusals[error.code, default: 0] += 1
                continue
            }
            opened += 1
            let geocoder = ReverseGeocoder(index: index)
            let search = CitySearch(index: index)
            for _ in 0..<5 {
                let point = Coordinate(
                    latitude: Double.random(in: -90...90, using: &random),
                    longitude: Double.random(in: -180...180, using: &random))
                _ = geocoder.place(for: point)
            }
            for query in ["metro", "springfield", "spring, aa", "li"] { _ = search.search(query) }
            _ = PopularCities.resolve(with: search)
        }
        // The directory is intact, so most damaged files open and are queried; a file refused is called corrupt.
        #expect(opened >= 150, "\(opened) of 300 damaged files opened")
        #expect(refusals.keys.allSatisfy { $0 == .corrupt }, "refused as \(refusals)")
    }

    @Test func aMissingFileIsUnreadable() {
        #expect(throws: PlacesIndexError.self) { try PlacesIndex(path: "/nonexistent/places.bin") }
        do {
            _ = try PlacesIndex(path: "/nonexistent/places.bin")
        } catch {
            #expect(error.code == .unreadable)
            #expect(error.description.contains("/nonexistent/places.bin"))
        }
    }

    @Test func aFolderIsNotAnIndex() {
        #expect(throws: PlacesIndexError.self) { try PlacesIndex(path: NSTemporaryDirectory()) }
    }

    @Test func anIndexWrittenToDiskIsMappedBack() throws {
        let path = NSTemporaryDirectory() + "breeze-places-\(getpid()).bin"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(good).write(to: URL(fileURLWithPath: path))
        let index = try PlacesIndex(path: path)
        #expect(index.count == SyntheticPlaces.all.count)
        #expect(
            ReverseGeocoder(index: index).place(for: Coordinate(latitude: 40, longitude: 10))?.place.name
                == "Metropolis")
    }
}
