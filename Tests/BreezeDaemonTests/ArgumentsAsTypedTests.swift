import BreezeTestSupport
import Foundation
import Testing

/// breezectl against a running breezed, taking names and positions as people type them: words unquoted, a
/// region after a comma, the name `saved` prints, a position as a map copies it; and search answers ranked with the
/// name that matched.
@Suite(.serialized)
struct ArgumentsAsTypedTests {
    static let portlandMaine = 4_975_802
    static let portlandOregon = 5_746_545

    private func breezectl(_ daemon: BreezedProcess, _ arguments: [String]) async throws -> BreezedProcess.Result {
        try await BreezedProcess.breezectl(["--socket", daemon.socket, "--units", "c"] + arguments)
    }

    /// The GeoNames id of the place breezed shows now.
    private func shownID(_ daemon: BreezedProcess) async throws -> Int? {
        let result = try await breezectl(daemon, ["--json", "where"])
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        return object?["geoname_id"] as? Int
    }

    @Test func searchTakesTheWordsOfANameUnquotedAndShowsTheNameThatMatched() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let newYork = try await breezectl(daemon, ["search", "new", "york"])
        #expect(newYork.status == 0, "\(newYork.errors)")
        #expect(newYork.output.split(separator: "\n").first?.contains("New York City, New York, United States") == true)
        // Aleppo's own name does not start with "beroea": it is found by an alternate name, shown after a dash.
        let beroea = try await breezectl(daemon, ["search", "beroea"])
        #expect(beroea.output.contains("Aleppo, Syria — Beroea"), "\(beroea.output)")
        let json = try await breezectl(daemon, ["--json", "search", "beroea"])
        let first = try JSONSerialization.jsonObject(with: Data(json.output.split(separator: "\n")[0].utf8)) as? [String: Any]
        #expect(first?["matched"] as? String == "Beroea" && first?["city"] as? String == "Aleppo")
        // Places whose own name starts with the query come first: Bern before anything found by another name.
        let bern = try await breezectl(daemon, ["search", "bern"])
        #expect(bern.output.split(separator: "\n").first?.contains("Bern, Switzerland") == true, "\(bern.output)")
        #expect(!bern.output.split(separator: "\n").prefix(5).contains { $0.contains("—") }, "\(bern.output)")
        await daemon.stop()
    }

    @Test func countAndFormatBoundWhatIsPrinted() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let three = try await breezectl(daemon, ["search", "--count", "3", "san"])
        #expect(three.status == 0, "\(three.errors)")
        #expect(three.output.split(separator: "\n").count == 3, "\(three.output)")
        let many = try await breezectl(daemon, ["--json", "search", "--count", "40", "san"])
        #expect(many.output.split(separator: "\n").count == 40, "\(many.output)")
        // watch ends after the lines asked for: the snapshot's first two objects here.
        let watched = try await breezectl(daemon, ["--json", "watch", "--count", "2"])
        #expect(watched.status == 0, "\(watched.errors)")
        let classes = watched.output.split(separator: "\n").map { object(String($0))["class"] as? String }
        #expect(classes == ["PERMISSION", "LOCATION"], "\(watched.output)")
        let bar = try await breezectl(daemon, ["watch", "--count", "1", "--format", "{city}"])
        #expect(bar.output == "Bern\n", "\(bar.output)")
        // --format for status and where: one line, a missing value empty or its default.
        let whereLine = try await breezectl(daemon, ["where", "--format", "{city}, {country_code} [{aqi}] [{aqi|?}]"])
        #expect(whereLine.status == 0 && whereLine.output == "Bern, CH [] [?]\n", "\(whereLine.output)\(whereLine.errors)")
        let statusLine = try await breezectl(daemon, ["status", "--format", "{city} {air_state}"])
        #expect(statusLine.output == "Bern offline\n", "\(statusLine.output)")
        let looked = try await breezectl(daemon, ["status", "lisbon", "--format", "{city} {country_code} {air_state}"])
        #expect(looked.output == "Lisbon PT offline\n", "\(looked.output)\(looked.errors)")
        await daemon.stop()
    }

    @Test func selectTakesANameOfSeveralWordsAndTheVeryNameFirst() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let maine = try await breezectl(daemon, ["select", "portland,", "maine"])
        #expect(maine.status == 0, "\(maine.errors)")
        #expect(try await shownID(daemon) == Self.portlandMaine)
        // Another Portland is in the United States: the region tells them apart wherever the place is shown; `name`
        // keeps its meaning.
        #expect(maine.output.hasPrefix("Portland, Maine, United States · selected"), "\(maine.output)")
        let location = object(try await breezectl(daemon, ["--json", "where"]).output)
        #expect(location["distinct_name"] as? String == "Portland, Maine, United States", "\(location)")
        #expect(location["name"] as? String == "Portland, United States", "\(location)")
        let watched = try await breezectl(daemon, ["watch", "--count", "2"])
        #expect(watched.output.contains("LOCATION Portland, Maine, United States (selected)"), "\(watched.output)")
        // One Bern in Switzerland: no region.
        #expect(try await breezectl(daemon, ["select", "bern"]).output.hasPrefix("Bern, Switzerland · selected"))
        let lookup = object(try await breezectl(daemon, ["--json", "lookup", "43.66", "-70.25"]).output)
        #expect(lookup["distinct_name"] as? String == "Portland, Maine, United States", "\(lookup)")
        // Bathinda is bigger and its name starts with "bath"; Bath is the place of that very name.
        let bath = try await breezectl(daemon, ["select", "bath"])
        #expect(bath.status == 0, "\(bath.errors)")
        #expect(try await shownID(daemon) == 2_656_173)
        await daemon.stop()
    }

    @Test func savedRemoveTakesWhatSavedAddTookAndWhatSavedPrints() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        for words in [["portland,", "maine"], ["portland, oregon"]] {
            let added = try await breezectl(daemon, ["saved", "add"] + words)
            #expect(added.status == 0, "\(added.errors)")
        }
        let listed = try await breezectl(daemon, ["saved"])
        #expect(listed.output.contains("Portland, Maine, United States"), "\(listed.output)")
        #expect(listed.output.contains("Portland, Oregon, United States"), "\(listed.output)")
        // Two saved cities are called Portland: the message tells them apart by region and id.
        let ambiguous = try await breezectl(daemon, ["saved", "remove", "portland"])
        #expect(ambiguous.status == 64)
        #expect(ambiguous.errors.contains("Portland, Maine, United States (\(Self.portlandMaine))"), "\(ambiguous.errors)")
        #expect(ambiguous.errors.contains("Portland, Oregon, United States (\(Self.portlandOregon))"), "\(ambiguous.errors)")
        // The name `saved` prints.
        let printed = try await breezectl(daemon, ["saved", "remove", "Portland, Maine, United States"])
        #expect(printed.status == 0, "\(printed.errors)")
        #expect(try await breezectl(daemon, ["saved", "add", "portland,", "maine"]).status == 0)
        // What `saved add` took, unquoted, with the short alias.
        let typed = try await breezectl(daemon, ["saved", "rm", "portland,", "maine"])
        #expect(typed.status == 0, "\(typed.errors)")
        let left = try await breezectl(daemon, ["saved"])
        #expect(!left.output.contains("Maine") && left.output.contains("Oregon"), "\(left.output)")
        let missing = try await breezectl(daemon, ["saved", "rm", "portland, maine"])
        #expect(missing.status == 1 && missing.errors.contains("no saved city is called"), "\(missing.errors)")
        await daemon.stop()
    }

    @Test(arguments: [["47.37,8.54"], ["47.37, 8.54"], ["47.37", "8.54"]])
    func lookupTakesAPositionAsAMapCopiesIt(arguments: [String]) async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let result = try await breezectl(daemon, ["lookup"] + arguments)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.hasPrefix("Zürich, Switzerland"), "\(result.output)")
        await daemon.stop()
    }

    @Test func watchOnceAlonePrintsTheStateAsOneLine() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let result = try await breezectl(daemon, ["watch", "--once"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.split(separator: "\n").count == 1 && result.output.contains("Bern"), "\(result.output)")
        await daemon.stop()
    }

    /// A socket path that is a directory or a plain file is a wrong path, said so, not "Connection refused".
    @Test(arguments: ["directory", "file"])
    func aSocketPathThatIsNoSocketIsSaidSo(kind: String) async throws {
        let folder = try BreezedProcess.makeFolder()
        let path = folder + "/not-a-socket"
        if kind == "directory" {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } else {
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        }
        let result = try await BreezedProcess.breezectl(["--socket", path, "status"])
        #expect(result.status == 69)
        #expect(result.errors.contains("\(path): it is a \(kind), not a socket"), "\(result.errors)")
        #expect(!result.errors.contains("refused"), "\(result.errors)")
    }

    @Test func aUsageErrorNamesTheSubcommandsHelp() async throws {
        let result = try await BreezedProcess.breezectl(["--socket", "/nonexistent/breezed.sock", "lookup", "nan", "0"])
        #expect(result.status == 64)
        #expect(result.errors.contains("lookup takes a latitude and a longitude in degrees"), "\(result.errors)")
        #expect(result.errors.hasSuffix("Run 'breezectl help lookup' for its usage.\n"), "\(result.errors)")
    }
}
