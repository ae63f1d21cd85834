import BreezeCLI
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `breezectl completion bash|zsh|fish`: scripts made from breezectl's own command table, and what bash then
/// offers at a TAB.
@Suite struct CompletionTests {
    /// The subcommands `breezectl --help` lists.
    static var helpSubcommands: [String] {
        let help = ArgumentTests.run(["--help"]).output
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The words bash's completion offers for the last of `words` (`["breezectl", "sa"]`: `breezectl sa<TAB>`).
    static func bashWords(_ words: [String]) async throws -> [String] {
        let script = ArgumentTests.run(["completion", "bash"]).output
        let folder = NSTemporaryDirectory() + "breeze-completion-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try script.write(toFile: folder + "/breezectl", atomically: true, encoding: .utf8)
        // Started with posix_spawn and waited for on a thread of its own, never on the cooperative pool.
        let output = Pipe()
        let process = try ChildProcess.spawn("/bin/bash", [
            "--norc", "-c",
            #"source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _breezectl; printf '%s\n' "${COMPREPLY[@]}""#,
            "bash", folder + "/breezectl",
        ] + words, output: output)
        let data = await onDedicatedThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            if !process.waitUntilExit(timeout: 20) { kill(process.processIdentifier, SIGKILL) }
            return data
        }
        #expect(!process.isRunning && process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func helpListsTheSubcommands() {
        // The rest of these tests lean on this list: it is breezectl's table as the help shows it.
        #expect(Self.helpSubcommands.count >= 15)
        #expect(Self.helpSubcommands.contains("saved"))
        #expect(Self.helpSubcommands.last == "completion")
    }

    @Test func bashOffersEverySubcommandAndCompletesAPrefix() async throws {
        #expect(try await Self.bashWords(["breezectl", ""]) == Self.helpSubcommands + ["help"])
        #expect(try await Self.bashWords(["breezectl", "sa"]) == ["saved"])
        #expect(try await Self.bashWords(["breezectl", "--json", "we"]) == ["weather"])
        #expect(try await Self.bashWords(["breezectl", "--socket", "/tmp/x.sock", "wh"]) == ["where"])
    }

    @Test func bashOffersEachSubcommandsArguments() async throws {
        #expect(try await Self.bashWords(["breezectl", "saved", ""]) == ["list", "add", "remove", "rm"])
        #expect(try await Self.bashWords(["breezectl", "saved", "add", ""]) == [])
        #expect(try await Self.bashWords(["breezectl", "location", ""]) == ["on", "off"])
        #expect(try await Self.bashWords(["breezectl", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try await Self.bashWords(["breezectl", "help", "po"]) == ["pollen", "popular"])
        #expect(try await Self.bashWords(["breezectl", "--units", ""]) == ["c", "f"])
        #expect(try await Self.bashWords(["breezectl", "watch", "--w"]) == ["--waybar"])
        #expect(try await Self.bashWords(["breezectl", "air", "--w"]) == [])
        #expect(try await Self.bashWords(["breezectl", "fleet", "--w"]) == ["--watch"])
        #expect(try await Self.bashWords(["breezectl", "fleet", "--m"]) == ["--mqtt"])
        #expect(try await Self.bashWords(["breezectl", "fleet", "--mqtt", ""]) == [])
        #expect(try await Self.bashWords(["breezectl", "status", "--m"]) == [])
        #expect(try await Self.bashWords(["breezectl", "--v"]) == ["--version"])
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func everyScriptNamesEverySubcommand(shell: String) {
        let run = ArgumentTests.run(["completion", shell])
        #expect(run.status == 0)
        #expect(run.errors.isEmpty)
        let words = Set(run.output.split { " \"':\n".contains($0) })
        for subcommand in Self.helpSubcommands {
            #expect(words.contains(Substring(subcommand)), "\(shell): \(subcommand)")
        }
    }

    @Test func eachShellHasItsOwnHeader() {
        #expect(ArgumentTests.run(["completion", "bash"]).output.hasSuffix("complete -F _breezectl breezectl\n"))
        #expect(ArgumentTests.run(["completion", "zsh"]).output.hasPrefix("#compdef breezectl\n"))
        #expect(ArgumentTests.run(["completion", "fish"]).output.contains("complete -c breezectl -f\n"))
    }

    @Test func fleetsOptionsAreOfferedAfterFleetOnlyInZshAndFish() {
        let zsh = ArgumentTests.run(["completion", "zsh"]).output
        let fleetLine = zsh.split(separator: "\n").first { $0.contains("fleet) _arguments") }
        #expect(fleetLine?.contains("'--ca-file[") == true && fleetLine?.contains(":path:_files'") == true, "\(zsh)")
        #expect(fleetLine?.contains("'--mqtt[") == true && fleetLine?.contains("'--watch[") == true, "\(zsh)")
        let fish = ArgumentTests.run(["completion", "fish"]).output
        let afterFleet = "complete -c breezectl -n '__fish_seen_subcommand_from fleet'"
        #expect(fish.contains(afterFleet + " -l ca-file -r -F "), "\(fish)")
        #expect(fish.contains(afterFleet + " -l mqtt -x "), "\(fish)")
        #expect(!fish.contains("__fish_seen_subcommand_from status' -l mqtt"), "\(fish)")
    }

    @Test(arguments: [[], ["tcsh"], ["bash", "zsh"]])
    func anUnknownShellIsAUsageError(arguments: [String]) {
        let run = ArgumentTests.run(["completion"] + arguments)
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains("usage: breezectl completion bash|zsh|fish"))
    }
}
