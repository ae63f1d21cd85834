import BreezeCore
import BreezeProtocol
import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `breezectl search --interactive`: runs a `SearchView` in the terminal. One poll loop waits on the keys, the
/// daemon's socket and the signals' pipe, with the pause before an online search, the wait after a lone Escape
/// and the next try to reach a daemon that went away as its timeouts. The terminal is restored on every way out:
/// a key, SIGINT/SIGTERM/SIGHUP (then the signal is raised again, its default action restored), an error.
struct InteractiveSearch {
    /// How long an Escape waits for the rest of a sequence (an arrow key's bytes come together).
    static let escapeWait = Duration.milliseconds(50)
    /// How often a daemon that went away is tried again.
    static let reconnectInterval = Duration.seconds(1)

    let context: CommandContext

    /// The mutable state of one run of the loop.
    private final class Loop {
        let context: CommandContext
        var view = SearchView()
        var connection: ControlConnection?
        var purposes: [Int: SearchView.Purpose] = [:]
        var debounce: (deadline: ContinuousClock.Instant, generation: Int)?
        var reconnectAt: ContinuousClock.Instant?
        var escapeDeadline: ContinuousClock.Instant?
        var keys = KeyReader()
        var finished = false
        /// Left with Ctrl-C (typed, not signalled: the terminal is raw): exit 130.
        var interrupted = false
        var reply: JSONValue?
        var signal: Int32?

        init(context: CommandContext, connection: ControlConnection) {
            self.context = context
            self.connection = connection
        }

        func perform(_ actions: [SearchView.Action]) {
            for action in actions {
                switch action {
                case .send(let command, let arguments, let purpose):
                    guard let connection else { continue }
                    do throws(CLIError) {
                        let ordered = arguments.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                        let id = try connection.send(command, ordered)
                        purposes[id] = purpose
                    } catch {
                        lost(error.message)
                        return
                    }
                case .startDebounce(let generation):
                    debounce = (ContinuousClock.now + SearchView.debounce, generation)
                case .finish(let reply):
                    self.reply = reply
                    finished = true
                }
            }
        }

        func lost(_ reason: String) {
            connection = nil
            purposes = [:]
            debounce = nil
            reconnectAt = ContinuousClock.now + InteractiveSearch.reconnectInterval
            perform(view.handle(.daemonLost(reason)))
        }

        func reconnect() {
            do throws(CLIError) {
                connection = try context.connect()
                reconnectAt = nil
                perform(view.handle(.connected))
            } catch {
                reconnectAt = ContinuousClock.now + InteractiveSearch.reconnectInterval
            }
        }

        func readDaemon() {
            guard let connection else { return }
            do throws(CLIError) {
                guard let messages = try connection.receiveAvailable() else { return lost("it closed the connection") }
                for message in messages {
                    guard case .number(let number)? = message["id"], let id = Int(exactly: number) else {
                        // Without an id: why the daemon is closing the connection (it is stopping).
                        if message["class"]?.stringValue == "ERROR" {
                            lost(message["message"]?.displayText ?? "it is stopping")
                            return
                        }
                        continue
                    }
                    guard let purpose = purposes.removeValue(forKey: id) else { continue }
                    perform(view.handle(.reply(purpose, message)))
                }
            } catch {
                lost(error.message)
            }
        }

        /// Milliseconds until the nearest timer, for poll; -1 for none.
        var pollTimeout: Int32 {
            let deadlines = [debounce?.deadline, reconnectAt, escapeDeadline].compactMap { $0 }
            guard let nearest = deadlines.min() else { return -1 }
            let (seconds, attoseconds) = ContinuousClock.now.duration(to: nearest).components
            return Int32(clamping: max(seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1, 0))
        }

        func fireTimers() {
            let now = ContinuousClock.now
            if let pending = debounce, pending.deadline <= now {
                debounce = nil
                perform(view.handle(.debounceElapsed(generation: pending.generation)))
            }
            if let deadline = escapeDeadline, deadline <= now {
                escapeDeadline = nil
                for key in keys.flushEscape() where !finished { perform(view.handle(.key(key))) }
            }
            if let deadline = reconnectAt, deadline <= now { reconnect() }
        }
    }

    func run() throws(CLIError) {
        // Reached before the screen changes: a daemon that is not there is exit 69, as for any subcommand.
        let connection = try context.connect()
        connection.waitWithoutLimit()
        let color = BreezeCTL.colorAllowed(isTerminal: true, environment: context.environment)
        let signals = try TerminalSignals()
        let loop = Loop(context: context, connection: connection)
        do {
            let terminal = try RawTerminal()
            defer { terminal.restore() }
            let size = terminal.size
            _ = loop.view.handle(.resized(columns: size.columns, rows: size.rows))
            loop.perform(loop.view.handle(.connected))
            while !loop.finished {
                terminal.write(SearchScreen.draw(loop.view, color: color))
                var descriptors = [
                    pollfd(fd: terminal.input, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: signals.readEnd, events: Int16(POLLIN), revents: 0),
                ]
                if let socket = loop.connection?.descriptor {
                    descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0))
                }
                let ready = poll(&descriptors, nfds_t(descriptors.count), loop.pollTimeout)
                if ready < 0 && errno != EINTR {
                    throw CLIError(.failure, "poll failed: \(String(cString: strerror(errno)))")
                }
                for number in signals.received() {
                    if number == SIGWINCH {
                        let size = terminal.size
                        _ = loop.view.handle(.resized(columns: size.columns, rows: size.rows))
                    } else {
                        loop.signal = number
                        loop.finished = true
                    }
                }
                if loop.finished { break }
                if descriptors[0].revents != 0 {
                    var buffer = [UInt8](repeating: 0, count: 4_096)
                    let count = retryingOnInterrupt {
                        buffer.withUnsafeMutableBytes { read(terminal.input, $0.baseAddress, $0.count) }
                    }
                    // The terminal is gone (end of input, or an error): nothing more can be typed.
                    guard count > 0 else { break }
                    for key in loop.keys.push(buffer[0..<count]) where !loop.finished {
                        if key == .interrupt { loop.interrupted = true }
                        loop.perform(loop.view.handle(.key(key)))
                    }
                    loop.escapeDeadline = loop.keys.isWaiting ? ContinuousClock.now + Self.escapeWait : nil
                }
                if descriptors.count > 2 && descriptors[2].revents != 0 { loop.readDaemon() }
                loop.fireTimers()
            }
        }
        if let number = loop.signal, number != SIGWINCH {
            // Restored: now the signal does what it would have done.
            signals.uninstall()
            raise(number)
        }
        if loop.interrupted { throw CLIError(.interrupted, "interrupted") }
        if let reply = loop.reply {
            let renderer = ReplyRenderer(
                subcommand: .select, json: false, dashboard: context.dashboard, format: nil, waybar: false,
                i3bar: false)
            context.output.write(renderer.reply(reply))
        }
    }
}
