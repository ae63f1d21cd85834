import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `breezectl search --interactive` in a real terminal (tmux) against a real breezed: what it shows before typing
/// and as you type, selecting and saving, leaving with Ctrl-C, and breezed going away under it; each time the
/// terminal's settings (`stty -a`, run in the pane) are the same after as before.
@Suite(.serialized, .enabled(if: TmuxTerminal.isAvailable, "needs tmux (scripts/bootstrap installs it)"))
struct InteractiveSearchTests {
    /// A daemon, a terminal, and the folder both use; `finish()` ends them.
    struct Rig {
        let daemon: BreezedProcess
        let terminal: TmuxTerminal
        let folder: String

        static func start() async throws -> Rig {
            let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline"])
            let terminal = try await TmuxTerminal(
                socket: daemon.folder + "/tmux.sock", folder: daemon.folder,
                environment: ["BREEZE_SOCKET": daemon.socket, "LC_ALL": "C.UTF-8", "PS1": "$ "])
            return Rig(daemon: daemon, terminal: terminal, folder: daemon.folder)
        }

        /// Starts the view in the pane, between two `stty -a` saved as `<name>.before` and `<name>.after`; a line
        /// "<name> exited <status>" follows its end, then "<name> done" (quoted apart on the command line, so that
        /// the line typed does not hold them).
        func open(_ name: String, prefix: String = "") async throws {
            let breezectl = BreezedProcess.breezectl
            try await terminal.type(
                "stty -a > \(name).before; \(prefix)'\(breezectl)' search --interactive; echo \"\(name)\" exited $?; "
                    + "stty -a > \(name).after; echo \"\(name)\" done")
            try await terminal.press("Enter")
        }

        /// The two `stty -a` outputs of a run, once it is done.
        func settings(_ name: String) async throws -> (before: String, after: String) {
            let done = try await terminal.waitForScreen { $0.contains("\(name) done") }
            #expect(done.held, "\(done.screen)")
            let before = try String(contentsOfFile: folder + "/\(name).before", encoding: .utf8)
            let after = try String(contentsOfFile: folder + "/\(name).after", encoding: .utf8)
            return (before, after)
        }

        /// Ends the terminal and the daemon (a test that throws first still kills the terminal in its `defer`; the
        /// daemon is killed with its object).
        func finish() async {
            terminal.kill()
            await daemon.stop()
        }
    }

    static func isOpen(_ screen: String) -> Bool { screen.contains("Search:") && screen.contains("Esc leave") }

    @Test func typingSearchesLiveAndEnterSelectsWhatIsSaved() async throws {
        let rig = try await Rig.start()
        defer { rig.terminal.kill() }
        // Colour allowed whatever the environment the tests run in says.
        try await rig.open("select", prefix: "env -u NO_COLOR ")

        let start = try await rig.terminal.waitForScreen { Self.isOpen($0) && $0.contains("Popular cities") }
        #expect(start.held, "\(start.screen)")
        #expect(start.screen.contains("> Use current location"), "\(start.screen)")
        #expect(start.screen.contains("Tokyo") && start.screen.contains("New York City"), "\(start.screen)")
        // On a terminal without NO_COLOR, the selection is in reverse video.
        let styled = try await rig.terminal.run(["capture-pane", "-p", "-e"])
        #expect(styled.contains("\u{1B}[7m"), "\(styled.debugDescription)")

        try await rig.terminal.type("zür")
        let live = try await rig.terminal.waitForScreen { screen in
            screen.split(separator: "\n").contains { $0.hasPrefix("> Zürich ") && $0.contains("Switzerland") }
        }
        #expect(live.held, "\(live.screen)")
        #expect(live.screen.contains("Search: zür"), "\(live.screen)")
        #expect(!live.screen.contains("Use current location"), "\(live.screen)")

        try await rig.terminal.press("C-s")
        let saved = try await rig.terminal.waitForScreen { $0.contains("Saved Zürich.") }
        #expect(saved.held, "\(saved.screen)")
        let list = try await rig.daemon.ctl(["saved", "--json"])
        #expect(list.output.contains("\"city\":\"Zürich\""), "\(list.output)")

        try await rig.terminal.press("Enter")
        let left = try await rig.terminal.waitForScreen { $0.contains("select exited 0") }
        #expect(left.held, "\(left.screen)")
        // The alternate screen is gone; what select prints is there.
        #expect(!left.screen.contains("Esc leave"), "\(left.screen)")
        #expect(left.screen.contains("Zürich, Switzerland"), "\(left.screen)")
        let location = object(try await rig.daemon.ctl(["where", "--json"]).output)
        #expect(location["source"] as? String == "manual")
        #expect(location["city"] as? String == "Zürich")
        #expect(location["country"] as? String == "Switzerland")

        let settings = try await rig.settings("select")
        #expect(!settings.before.isEmpty)
        #expect(settings.before == settings.after)
        await rig.finish()
    }

    @Test func controlCLeavesWithTheTerminalAsItWas() async throws {
        let rig = try await Rig.start()
        defer { rig.terminal.kill() }
        try await rig.open("interrupt", prefix: "NO_COLOR=1 ")
        let start = try await rig.terminal.waitForScreen { Self.isOpen($0) && $0.contains("Popular cities") }
        #expect(start.held, "\(start.screen)")
        // NO_COLOR: no attribute at all, the selection marked by ">" alone.
        let styled = try await rig.terminal.run(["capture-pane", "-p", "-e"])
        #expect(!styled.contains("\u{1B}[7m") && !styled.contains("\u{1B}[1m"), "\(styled)")
        #expect(styled.contains("> Use current location"))

        try await rig.terminal.type("ber")
        let typed = try await rig.terminal.waitForScreen { $0.contains("> Berlin") }
        #expect(typed.held, "\(typed.screen)")

        try await rig.terminal.press("C-c")
        // Ctrl-C is a cancel: exit 130, as shells report an interrupted command (Esc leaves with 0).
        let left = try await rig.terminal.waitForScreen { $0.contains("interrupt exited 130") }
        #expect(left.held, "\(left.screen)")
        #expect(!left.screen.contains("Esc leave"), "\(left.screen)")
        let settings = try await rig.settings("interrupt")
        #expect(settings.before.contains("icanon") && settings.before.contains("echo"), "\(settings.before)")
        #expect(settings.before == settings.after)
        // Nothing selected: the daemon has no place.
        #expect(object(try await rig.daemon.ctl(["where", "--json"]).output)["source"] as? String != "manual")
        await rig.finish()
    }

    @Test func theDaemonGoingAwayIsShownAndTheTerminalSurvives() async throws {
        let rig = try await Rig.start()
        defer { rig.terminal.kill() }
        try await rig.open("lost")
        let start = try await rig.terminal.waitForScreen { Self.isOpen($0) && $0.contains("Popular cities") }
        #expect(start.held, "\(start.screen)")
        try await rig.terminal.type("ber")
        let typed = try await rig.terminal.waitForScreen { $0.contains("> Berlin") }
        #expect(typed.held, "\(typed.screen)")

        await rig.daemon.stop()
        let gone = try await rig.terminal.waitForScreen { $0.contains("breezed went away") }
        #expect(gone.held, "\(gone.screen)")
        #expect(gone.screen.contains("Search: ber"), "\(gone.screen)")
        #expect(gone.screen.contains("Your query is kept"), "\(gone.screen)")

        // Still a working view: keys are read, and Esc leaves it (exit 0: not a cancel).
        try await rig.terminal.type("n")
        let kept = try await rig.terminal.waitForScreen { $0.contains("Search: bern") }
        #expect(kept.held, "\(kept.screen)")
        try await rig.terminal.press("Escape")
        let left = try await rig.terminal.waitForScreen { $0.contains("lost exited 0") }
        #expect(left.held, "\(left.screen)")
        let settings = try await rig.settings("lost")
        #expect(settings.before == settings.after)
        await rig.finish()
    }

    @Test func aResizeRedrawsAndSIGTERMRestoresTheTerminal() async throws {
        let rig = try await Rig.start()
        defer { rig.terminal.kill() }
        try await rig.open("term")
        let start = try await rig.terminal.waitForScreen { Self.isOpen($0) && $0.contains("Popular cities") }
        #expect(start.held, "\(start.screen)")
        let pids = try await rig.terminal.run(["list-panes", "-F", "#{pane_pid}"]).split(separator: "\n").compactMap { Int32($0) }
        let shell = try #require(pids.first)
        // The view is the shell's child running breezectl.
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            .split(separator: " ").compactMap { Int32($0) }
        let view = try #require(children.first)
        // A resize redraws at the new size.
        try await rig.terminal.run(["resize-window", "-x", "60", "-y", "15"])
        let resized = try await rig.terminal.waitForScreen { screen in
            screen.split(separator: "\n").contains { $0 == String(repeating: "-", count: 60) }
        }
        #expect(resized.held, "\(resized.screen)")
        #expect(resized.screen.split(separator: "\n").allSatisfy { $0.count <= 60 })
        kill(view, SIGTERM)
        let left = try await rig.terminal.waitForScreen { $0.contains("term exited 143") }
        #expect(left.held, "\(left.screen)")
        #expect(!left.screen.contains("Esc leave"), "\(left.screen)")
        // The same settings but for the size, which the resize changed.
        let settings = try await rig.settings("term")
        func withoutSize(_ text: String) -> String {
            text.replacing(/rows \d+; columns \d+;/, with: "")
        }
        #expect(settings.before.contains("columns 100;") && settings.after.contains("columns 60;"))
        #expect(withoutSize(settings.before) == withoutSize(settings.after))
        await rig.finish()
    }
}
