import BreezeTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real terminal for a test: a tmux server on a socket of its own (nothing shared with a tmux the user runs), one
/// session of a given size running `sh`, driven with `send-keys` and read with `capture-pane`. `kill()` ends the
/// server and what runs in it; call it in a `defer`.
final class TmuxTerminal: @unchecked Sendable {
    // @unchecked: every stored property is a constant.
    static let executable = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var isAvailable: Bool { executable != nil }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let socket: String

    /// Starts the server and a `columns` × `rows` session running `sh` in `folder`, with `environment` added.
    init(socket: String, folder: String, columns: Int = 100, rows: Int = 30, environment: [String: String] = [:]) async throws {
        self.socket = socket
        var arguments = ["new-session", "-d", "-x", String(columns), "-y", String(rows), "-c", folder]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(key)=\(value)"] }
        // The server this starts keeps the descriptors it was given: no pipe, whose reader would wait for ever.
        try await run(arguments + ["sh"], capture: false)
    }

    /// Runs a tmux command against this server; returns what it printed (with `capture`). Started as the harness
    /// starts every program, with signals as a program expects them: the server, the shell in the pane and
    /// breezectl in it inherit them (SIGTERM and SIGWINCH not blocked).
    @discardableResult
    func run(_ arguments: [String], capture: Bool = true) async throws -> String {
        guard let executable = Self.executable else { throw Failure(description: "tmux is not installed") }
        let output = capture ? Pipe() : nil
        // -u: UTF-8 whatever the locale; -f /dev/null: no user configuration.
        let process = try await ChildProcess.launch(
            executable, ["-u", "-f", "/dev/null", "-S", socket] + arguments, environment: ["LC_ALL": "C.UTF-8"],
            output: output, errorOutput: output)
        let data = await onDedicatedThread { output?.fileHandleForReading.readDataToEndOfFile() ?? Data() }
        let ended = await onDedicatedThread { process.waitUntilExit(timeout: 10) }
        let text = String(decoding: data, as: UTF8.self)
        guard ended, process.terminationStatus == 0 else {
            if !ended { process.signal(SIGKILL) }
            throw Failure(description: "tmux \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }

    /// Types `text` as it is (no key names).
    func type(_ text: String) async throws {
        try await run(["send-keys", "-l", text])
    }

    /// Presses keys by tmux's names: `Enter`, `C-c`, `C-s`, `Down`.
    func press(_ keys: String...) async throws {
        try await run(["send-keys"] + keys)
    }

    /// What the pane shows now, a line per row.
    func screen() async throws -> String {
        try await run(["capture-pane", "-p"])
    }

    /// Polls the pane until `condition` holds for what it shows, for at most `timeout` seconds; returns the last
    /// screen and whether it held.
    func waitForScreen(timeout: Double = 15, _ condition: (String) -> Bool) async throws -> (screen: String, held: Bool) {
        let deadline = TestTime.deadline(after: timeout)
        var shown = try await screen()
        while !condition(shown) {
            guard ContinuousClock.now < deadline else { return (shown, false) }
            try await Task.sleep(for: .milliseconds(50))
            shown = try await screen()
        }
        return (shown, true)
    }

    /// Ends the server, its session and everything running in it.
    /// Synchronous, for a `defer`; a server already gone is no error.
    func kill() {
        if let executable = Self.executable,
            let process = try? ChildProcess.spawn(
                "/usr/bin/python3",
                ["-c", ChildProcess.resetSignalsAndExec, executable, "-f", "/dev/null", "-S", socket, "kill-server"])
        {
            if !process.waitUntilExit(timeout: 10) { process.signal(SIGKILL) }
        }
        unlink(socket)
    }
}
