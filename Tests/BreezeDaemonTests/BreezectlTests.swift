import BreezeCore
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// breezectl's help against stored text, and its exit codes.
@Suite
struct BreezectlTests {
    static let expected = BreezedProcess.root + "/Tests/BreezeDaemonTests/Expected"

    @Test(arguments: [
        (["--help"], "breezectl-help.txt"), (["help", "watch"], "breezectl-help-watch.txt"),
        (["lookup", "--help"], "breezectl-help-lookup.txt"),
    ])
    func helpMatchesTheStoredText(arguments: [String], file: String) async throws {
        let result = try await BreezedProcess.breezectl(arguments)
        let stored = try String(contentsOfFile: Self.expected + "/" + file, encoding: .utf8)
        #expect(result.status == 0)
        #expect(result.output == stored)
    }

    @Test(arguments: [
        ([], "a subcommand is needed"), (["fly"], "unknown subcommand"), (["where", "--colour"], "unknown option"),
        (["lookup", "46.5"], "a latitude and a longitude"), (["lookup", "north", "east"], "a latitude and a longitude"),
        (["location", "maybe"], "on or off"), (["search", "Z"], "at least 2 characters"),
        (["--units", "k", "status"], "--units is c or f"), (["air", "--waybar"], "go with watch"),
    ])
    func usageErrorsExit64WithAHint(arguments: [String], message: String) async throws {
        let result = try await BreezedProcess.breezectl(["--socket", "/nonexistent/breezed.sock"] + arguments)
        #expect(result.status == 64)
        #expect(result.errors.contains(message), "\(result.errors)")
        let subcommand = arguments.first { !$0.hasPrefix("-") && $0 != "k" && $0 != "fly" }
        #expect(result.errors.contains(subcommand.map { "breezectl help \($0)" } ?? "breezectl --help"), "\(result.errors)")
    }

    @Test func anUnreachableDaemonExits69AndSaysWhichSocket() async throws {
        let result = try await BreezedProcess.breezectl(["--socket", "/nonexistent/breezed.sock", "where"])
        #expect(result.status == 69)
        #expect(result.errors.contains("/nonexistent/breezed.sock"))
        #expect(result.errors.contains("is breezed running"))
        let fromEnvironment = try await BreezedProcess.breezectl(["status"], environment: ["BREEZE_SOCKET": "/nonexistent/env.sock"])
        #expect(fromEnvironment.status == 69)
        #expect(fromEnvironment.errors.contains("/nonexistent/env.sock"))
    }

    @Test func versionPrintsTheRelease() async throws {
        let result = try await BreezedProcess.breezectl(["--version"])
        #expect(result.status == 0)
        #expect(result.output == "breezectl \(Release.version)\n")
    }

    @Test func watchPrintsFormattedLinesAndWaybarJSON() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        let format = try await watchLines(daemon, ["watch", "--format", "{city} ({country_code}) {state}"]) {
            $0.hasPrefix("Bern (CH)")
        }
        #expect(format.contains { $0.hasPrefix("Bern (CH)") }, "\(format)")
        let waybar = try await watchLines(daemon, ["watch", "--waybar"]) { $0.contains("Bern") }
        let first = try #require(waybar.last)
        let object = try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]
        #expect(object?["text"] != nil && object?["tooltip"] != nil && object?["class"] != nil, "\(first)")
        await daemon.stop()
    }

    /// Runs `breezectl watch …` until it prints a line that `done` accepts (at most 20 s), then stops it.
    private func watchLines(
        _ daemon: BreezedProcess, _ arguments: [String], until done: @escaping @Sendable (String) -> Bool
    ) async throws -> [String] {
        let output = Pipe()
        let process = try await ChildProcess.launch(BreezedProcess.breezectl, ["--socket", daemon.socket] + arguments, output: output)
        let descriptor = output.fileHandleForReading.fileDescriptor
        let lines = await onDedicatedThread { Self.readLines(descriptor, until: done, within: .seconds(20)) }
        process.terminate()
        return lines
    }

    /// The lines read from `descriptor` until one satisfies `done`, the writer closes, or `limit` passes.
    private static func readLines(_ descriptor: Int32, until done: (String) -> Bool, within limit: Duration) -> [String] {
        let deadline = ContinuousClock.now + limit
        var text = ""
        while !text.split(separator: "\n").contains(where: { done(String($0)) }) {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { break }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(clamping: remaining.components.seconds * 1_000 + 1)) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return text.split(separator: "\n").map(String.init)
    }
}
