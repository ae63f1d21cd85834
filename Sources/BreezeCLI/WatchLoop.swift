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

    func run() throws(CLIError) {
        if once { return try printOnce() }
        var delay = Self.firstRetry
        var shown: String?
        while true {
            let reason: String
            do throws(CLIError) {
                reason = try follow {
                    delay = Self.firstRetry
                    shown = nil
                }
            } catch {
                if error.kind == .usage { throw error }
                reason = error.message
            }
            // Each outage once, and again only when its reason changes.
            if reason != shown { output.write(now().outageLine(reason)) }
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
    private func follow(_ answered: () -> Void) throws(CLIError) -> String {
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
        func show(_ line: String) {
            guard line != printed else { return }
            printed = line
            output.write(line)
        }
        while true {
            if renderer.isBar, snapshotEnd == nil, !connection.hasInput(within: Self.redrawInterval) {
                show(now().barLine(latest))
                continue
            }
            guard let message = try connection.next() else { return "breezed closed the connection" }
            guard let className = message["class"]?.stringValue else { continue }
            if className == "ERROR" {
                return message["message"]?.displayText ?? "breezed closed the connection"
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
                    show(now().barLine(latest))
                } else if className != "VERSION" {
                    StatusBar.remember(ReplyRenderer.withoutID(message), in: &latest)
                }
                continue
            }
            guard let line = now().update(message, latest: &latest) else { continue }
            if renderer.isBar {
                show(line)
            } else if renderer.json {
                output.write(line)
            } else {
                if shownText.isNews(className, message, line: line) { output.write(line) }
            }
        }
    }
}
