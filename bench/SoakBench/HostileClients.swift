import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Local programs that misuse breezed's socket, each on a thread of its own until the run is over. Every count
/// goes to the scenario's tally under a short name the report prints.
enum HostileClients {
    /// Requests that cost the daemon work: offline and online search, naming a position, a snapshot.
    static func requests(_ count: Int, seed: Int) -> (bytes: [UInt8], lines: Int) {
        let queries = ["zur", "bern", "new york", "syd", "paris", "to", "münchen", "portland, me"]
        var text = ""
        for n in 0..<count {
            switch (seed + n) % 4 {
            case 0, 1: text += "{\"command\":\"search\",\"query\":\"\(queries[(seed + n) % queries.count])\",\"id\":\(n)}\n"
            case 2:
                let latitude = Double((seed &* 31 &+ n &* 17) % 170) - 85
                let longitude = Double((seed &* 7 &+ n &* 53) % 350) - 175
                text += "{\"command\":\"lookup\",\"latitude\":\(latitude),\"longitude\":\(longitude),\"id\":\(n)}\n"
            default: text += "{\"command\":\"status\",\"id\":\(n)}\n"
            }
        }
        return (Array(text.utf8), count)
    }

    static func searches(_ count: Int) -> [UInt8] {
        Array(String(repeating: "{\"command\":\"search\",\"query\":\"zur\"}\n", count: count).utf8)
    }

    /// Sends requests as fast as the daemon takes them and never reads. Once it stops reading (back-pressure),
    /// the client keeps trying; when the daemon closes it (stalled for 30 s), it connects again.
    static func pipeline(_ run: SoakRun, _ tally: Tally, seed: Int) {
        var seed = seed
        while !run.isOver {
            guard let fd = LoopbackSocket.connect(run, tally: tally) else { return }
            tally.add("connections")
            var batch = requests(256, seed: seed)
            var offset = 0
            closed: while !run.isOver {
                switch LoopbackSocket.send(fd, batch.bytes, from: offset, wait: 0.25) {
                case .closed:
                    tally.add("closed by daemon")
                    break closed
                case .wrote(let count):
                    tally.add("requests sent", batch.bytes[offset..<(offset + count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
                    offset += count
                    if offset == batch.bytes.count {
                        seed += 1
                        batch = requests(256, seed: seed)
                        offset = 0
                    }
                }
            }
            close(fd)
        }
    }

    /// Round after round: `clients` connections each write `perClient` searches without reading, then all close.
    static func crowd(_ run: SoakRun, _ tally: Tally, clients: Int, perClient: Int) {
        let batch = searches(perClient)
        while !run.isOver {
            var descriptors: [Int32] = []
            while descriptors.count < clients, !run.isOver {
                guard let fd = LoopbackSocket.connect(run, tally: tally) else { break }
                descriptors.append(fd)
            }
            tally.add("connections", descriptors.count)
            for fd in descriptors where !run.isOver {
                if case .wrote(let count) = LoopbackSocket.send(fd, batch, wait: 0.05) {
                    tally.add("searches sent", batch[..<count].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
                }
            }
            for fd in descriptors { close(fd) }
            tally.add("rounds")
            run.pause(1)
        }
    }

    /// One client writes up to `count` searches for as long as the daemon takes them (giving up after 2 s without
    /// room), leaves, and comes back `every` seconds later.
    static func flood(_ run: SoakRun, _ tally: Tally, count: Int, every: Double) {
        let block = searches(2_000)
        while !run.isOver {
            guard let fd = LoopbackSocket.connect(run, tally: tally) else { return }
            tally.add("connections")
            var sent = 0
            var offset = 0
            sending: while sent < count, !run.isOver {
                switch LoopbackSocket.send(fd, block, from: offset, wait: 2) {
                case .closed:
                    tally.add("closed by daemon")
                    break sending
                case .wrote(0): break sending
                case .wrote(let written):
                    sent += block[offset..<(offset + written)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                    offset = (offset + written) % block.count
                }
            }
            tally.add("searches sent", sent)
            close(fd)
            run.pause(every)
        }
    }

    /// `clients` connections that each write half a request and nothing more; each one the daemon times out
    /// (`slow-client`, after 60 s) or closes is replaced.
    static func halfLines(_ run: SoakRun, _ tally: Tally, clients: Int) {
        let half = Array("{\"command\":\"search\",\"query\":\"zu".utf8)
        var open: [Int32: [UInt8]] = [:]
        defer { for fd in open.keys { close(fd) } }
        while !run.isOver {
            while open.count < clients, !run.isOver {
                guard let fd = LoopbackSocket.connect(run, tally: tally) else { return }
                _ = LoopbackSocket.send(fd, half, wait: 1)
                open[fd] = []
                tally.add("half lines sent")
            }
            var entries = open.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&entries, nfds_t(entries.count), 200) > 0 else { continue }
            for entry in entries where entry.revents != 0 {
                var buffer = open[entry.fd] ?? []
                var chunk = [UInt8](repeating: 0, count: 4_096)
                let count = chunk.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count > 0 { buffer += chunk[..<count] }
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let kind = LoopbackSocket.kind(of: String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                    if kind != "VERSION" { tally.add("read \(kind)") }
                }
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                    tally.add("closed by daemon")
                    close(entry.fd)
                    open[entry.fd] = nil
                } else {
                    open[entry.fd] = buffer
                }
            }
        }
    }

    /// Lines no client should send, each with what the protocol says the daemon answers.
    static let malformed: [(name: String, bytes: [UInt8])] = [
        ("not JSON", Array("hello breezed\n".utf8)),
        ("cut-off JSON", Array("{\"command\":\n".utf8)),
        ("not an object", Array("[1,2,3]\n".utf8)),
        ("limit 1e19", Array("{\"command\":\"search\",\"query\":\"zur\",\"limit\":1e19}\n".utf8)),
        ("limit 2.5", Array("{\"command\":\"search\",\"query\":\"zur\",\"limit\":2.5}\n".utf8)),
        ("limit -1", Array("{\"command\":\"search\",\"query\":\"zur\",\"limit\":-1}\n".utf8)),
        ("latitude 1e19", Array("{\"command\":\"lookup\",\"latitude\":1e19,\"longitude\":0}\n".utf8)),
        ("latitude 1e999", Array("{\"command\":\"lookup\",\"latitude\":1e999,\"longitude\":0}\n".utf8)),
        ("latitude a string", Array("{\"command\":\"lookup\",\"latitude\":\"north\",\"longitude\":0}\n".utf8)),
        ("city 1e300", Array("{\"command\":\"select\",\"city\":1e300}\n".utf8)),
        ("city -9223372036854775809", Array("{\"command\":\"saved\",\"action\":\"remove\",\"city\":-9223372036854775809}\n".utf8)),
        ("nesting 10,000 deep", Array((String(repeating: "[", count: 10_000) + "\n").utf8)),
        ("nesting 60 deep in an object", Array(("{\"command\":\"search\",\"query\":\"zur\",\"x\":"
            + String(repeating: "{\"a\":", count: 60) + "1" + String(repeating: "}", count: 60) + "}\n").utf8)),
        ("invalid UTF-8", [0x7B, 0x22, 0x63, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D, 0x0A]),
        ("lone surrogate escape", Array("{\"command\":\"search\",\"query\":\"\\ud800zz\"}\n".utf8)),
        ("NUL byte", [0x7B, 0x00, 0x7D, 0x0A]),
        ("line of 100,000 bytes", Array((String(repeating: "x", count: 100_000) + "\n").utf8)),
        ("unknown command", Array("{\"command\":\"fly\"}\n".utf8)),
        ("id 1e19", Array("{\"command\":\"version\",\"id\":1e19}\n".utf8)),
    ]

    /// Sends each malformed line in turn and reads the one reply it gets, counting replies by their code.
    static func malformedLines(_ run: SoakRun, _ tally: Tally) {
        var index = 0
        while !run.isOver {
            guard let fd = LoopbackSocket.connect(run, tally: tally) else { return }
            tally.add("connections")
            var buffer: [UInt8] = []
            _ = LoopbackSocket.readLine(fd, &buffer, wait: 5)  // VERSION
            while !run.isOver {
                let line = malformed[index % malformed.count]
                index += 1
                var offset = 0
                while offset < line.bytes.count, !run.isOver,
                    case .wrote(let count) = LoopbackSocket.send(fd, line.bytes, from: offset, wait: 1)
                {
                    offset += count
                }
                tally.add("lines sent")
                guard let reply = LoopbackSocket.readLine(fd, &buffer, wait: 5) else {
                    tally.add("no reply within 5 s to \(line.name)")
                    break
                }
                tally.add("reply \(LoopbackSocket.kind(of: reply))")
            }
            close(fd)
        }
    }

    /// Every `every` seconds, connects until `refusals` connections were refused (or `cap` are open), reads the
    /// first line of each, holds them all a second, and closes them.
    static func storm(_ run: SoakRun, _ tally: Tally, refusals: Int, cap: Int, every: Double) {
        while !run.isOver {
            var descriptors: [Int32] = []
            var refused = 0
            tally.add("storms")
            while refused < refusals, descriptors.count < cap, !run.isOver {
                guard let fd = LoopbackSocket.connect(run, tally: tally) else { break }
                descriptors.append(fd)
                var buffer: [UInt8] = []
                let kind = LoopbackSocket.readLine(fd, &buffer, wait: 2).map(LoopbackSocket.kind(of:)) ?? "nothing (end of file or 2 s)"
                switch kind {
                case "VERSION": tally.add("accepted")
                case "too-many-clients":
                    refused += 1
                    tally.add("refused, read too-many-clients")
                default: tally.add("refused, read \(kind)")
                }
            }
            run.pause(1)
            for fd in descriptors { close(fd) }
            run.pause(every)
        }
    }
}
