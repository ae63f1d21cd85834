import BreezeCore
import BreezeProtocol
import Glibc

/// `breezectl watch`: breezed's updates as they come, for as long as it is left running. breezed stopping,
/// restarting or not running yet does not end it: it prints that breezed is unavailable and connects again after a
/// pause that doubles from `firstRetry` up to `lastRetry` (cut short when breezed's socket appears: `SocketWait`), and once breezed answers the updates resume. Only a usage
/// error (a socket path too long) ends it. With `--once` it prints one line and exits, 69 when breezed cannot be
/// reached (after printing the line that says so).
struct WatchLoop {
    /// The first pause before connecting again, in seconds; each failed attempt doubles it up to `lastRetry`.
    static let firstRetry = 0.5
    static let lastRetry = 30.0
    /// Seconds without an update after which a status bar's line is drawn again, so that the ages in its tooltip
    /// stay true.
    static let redrawInterval = 60.0

    var socket: String
    /// Seconds to wait to connect, and for breezed's answer to `watch`.
    var timeout: Double
    var renderer: ReplyRenderer
    var output: TextOutput
    var once: Bool
    /// `--count`: the lines to print before exiting (0); nil: no end.
    var count: Int? = nil

    /// How a connection that was followed ended.
    private enum End {
        /// breezed went away, for this reason: connect again.
        case lost(String)
        /// The lines `count` asked for are printed.
        case counted
    }

    /// The lines left to print of `count`; a class, as every connection's loop counts down the one number.
    private final class LinesLeft {
        var count: Int?
        init(_ count: Int?) { self.count = count }

        /// Counts a printed line; true once the last one asked for is printed.
        func printed() -> Bool {
            guard let left = count else { return false }
            count = left - 1
            return left <= 1
        }
    }

    func run() throws(CLIError) {
        if once { return try printOnce() }
        var delay = Self.firstRetry
        var shown: String?
        let left = LinesLeft(count)
        while true {
            let reason: String
            do throws(CLIError) {
                let end = try follow(left) {
                    delay = Self.firstRetry
                    shown = nil
                }
                guard case .lost(let why) = end else { return }
                reason = why
            } catch {
                if error.kind == .usage { throw error }
                reason = error.message
            }
            // Each outage once, and again only when its reason changes.
            if reason != shown {
                output.write(now().outageLine(reason))
                if left.printed() { return }
            }
            shown = reason
            SocketWait.wait(for: socket, atMost: delay)
            delay = min(delay * 2, Self.lastRetry)
        }
    }

    /// The renderer with its clock at the present, for the ages it prints.
    private func now() -> ReplyRenderer {
        var renderer = renderer
        renderer.dashboard.now = SystemServiceClock().wallTime
        return renderer
    }

    /// The current state as one status-bar line: from `status`, whose replies end with the reply to `version`.
    private func printOnce() throws(CLIError) {
        do throws(CLIError) {
            let connection = try ControlConnection(path: socket, timeout: timeout)
            let latest = try Self.snapshot(connection)
            output.write(now().barLine(latest))
        } catch {
            if error.kind != .usage { output.write(now().outageLine(error.message)) }
            throw error
        }
    }

    static func snapshot(_ connection: ControlConnection) throws(CLIError) -> [String: JSONValue] {
        let id = try connection.send("status")
        let end = try connection.send("version")
        var objects: [String: JSONValue] = [:]
        for object in try connection.replies(to: id, until: end) {
            StatusBar.remember(ReplyRenderer.withoutID(object), in: &objects)
        }
        return objects
    }

    /// One connection, followed until it ends; returns breezed's reason for ending it (or that it closed), and
    /// throws when it could not be made or broke. `answered` runs once breezed has taken the `watch`.
    ///
    /// A status bar gets one line for the whole state: the `status` snapshot first, then a line for each update
    /// that changes it. Without a bar, each object is a line of its own, as it comes.
    ///
    /// Each connection starts from nothing: what breezed sends again (its snapshot) is all a line is drawn from.
    private func follow(_ left: LinesLeft, _ answered: () -> Void) throws(CLIError) -> End {
        var latest: [String: JSONValue] = [:]
        let connection = try ControlConnection(path: socket, timeout: timeout)
        var snapshotEnd: Int?
        if renderer.isBar {
            try connection.send("status")
            snapshotEnd = try connection.send("version")
        }
        let watch = try connection.send("watch")
        var printed: String?
        var shownText = WatchNews()
        /// Prints a bar's line unless it is the one printed last; true once `count` lines are printed.
        func show(_ line: String) -> Bool {
            guard line != printed else { return false }
            printed = line
            return write(line)
        }
        func write(_ line: String) -> Bool {
            output.write(line)
            return left.printed()
        }
        while true {
            if renderer.isBar, snapshotEnd == nil, !connection.hasInput(within: Self.redrawInterval) {
                if show(now().barLine(latest)) { return .counted }
                continue
            }
            guard let message = try connection.next() else { return .lost("breezed closed the connection") }
            guard let className = message["class"]?.stringValue else { continue }
            if className == "ERROR" {
                return .lost(message["message"]?.displayText ?? "breezed closed the connection")
            }
            if className == "WATCH", message["id"] == .number(Double(watch)) {
                // The timeout bounds the wait for this answer; updates may be hours apart.
                connection.waitWithoutLimit()
                answered()
                continue
            }
            if let end = snapshotEnd {
                if message["id"] == .number(Double(end)) {
                    snapshotEnd = nil
                    if show(now().barLine(latest)) { return .counted }
                } else if className != "VERSION" {
                    StatusBar.remember(ReplyRenderer.withoutID(message), in: &latest)
                }
                continue
            }
            guard let line = now().update(message, latest: &latest) else { continue }
            if renderer.isBar {
                if show(line) { return .counted }
            } else if renderer.json || shownText.isNews(className, message, line: line) {
                if write(line) { return .counted }
            }
        }
    }
}
