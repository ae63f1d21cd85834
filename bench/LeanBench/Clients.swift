import BreezeTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One client that asks and waits for each answer: round trips, timed.
final class Asker {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    init(fd: Int32) {
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `line` and reads until a line ending in `marker` (and its object's `}`) arrives; returns the microseconds
    /// that took, or nil. Lines are found with memchr and only their ends compared: a `search` answer is kilobytes,
    /// and the client's own work must stay small beside the server's.
    func roundTrip(_ line: String, until marker: String) -> Double? {
        let bytes = Array(line.utf8)
        let wanted = Array((marker + "}").utf8)
        let started = ContinuousClock.now
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            return nil
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
            var found = false
            var start = 0
            buffer.withUnsafeBytes { raw in
                while start < raw.count, let hit = memchr(raw.baseAddress! + start, 0x0A, raw.count - start) {
                    let newline = raw.baseAddress!.distance(to: UnsafeRawPointer(hit))
                    // gpsd ends its lines with CR LF.
                    let end = newline > start && raw[newline - 1] == 0x0D ? newline - 1 : newline
                    if end - start >= wanted.count,
                        wanted.withUnsafeBytes({ memcmp(raw.baseAddress! + end - $0.count, $0.baseAddress!, $0.count) }) == 0
                    {
                        found = true
                    }
                    start = newline + 1
                }
            }
            buffer.removeFirst(start)
            if found { return elapsedMilliseconds(ContinuousClock.now - started) * 1000 }
        }
    }

    /// Reads and drops whatever arrives within `milliseconds` (greetings, the snapshot of a new client).
    func discard(for milliseconds: Int32) {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&entry, 1, milliseconds) > 0 {
            if chunk.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) <= 0 { return }
        }
        buffer = []
    }

    /// The median round trip of `count` requests made by `request(n)`, each answered by a line containing `marker(n)`.
    func medianRoundTrip(_ count: Int, request: (Int) -> String, marker: (Int) -> String) -> Double {
        var times: [Double] = []
        for n in 0..<count {
            guard let time = roundTrip(request(n), until: marker(n)) else { return .nan }
            times.append(time)
        }
        return median(times)
    }
}

/// Clients that stay connected: idle ones, or watchers whose updates a thread of their own reads and drops, as
/// status bars would.
final class Crowd: @unchecked Sendable {
    // @unchecked: `fds` is set in init; `stopRequested` is read and written under `lock`.
    let fds: [Int32]
    private let lock = NSLock()
    private var stopRequested = false
    private let done = DispatchSemaphore(value: 0)
    private let reading: Bool

    /// Connects `count` clients with `connect`, each sending `hello` (if any); `read`: drain what they receive.
    init(_ count: Int, connect: () -> Int32?, hello: String?, read: Bool) {
        var fds: [Int32] = []
        for _ in 0..<count {
            guard let fd = connect() else { continue }
            if let hello {
                let bytes = Array(hello.utf8)
                _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            fds.append(fd)
        }
        self.fds = fds
        reading = read
        guard read else { return }
        let all = fds
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var open = Set(all)
            while !lock.withLock({ stopRequested }) && !open.isEmpty {
                var entries = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                guard poll(&entries, nfds_t(entries.count), 100) >= 0 else { break }
                for entry in entries where entry.revents != 0 {
                    if buffer.withUnsafeMutableBytes({ recv(entry.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) == 0 {
                        open.remove(entry.fd)
                    }
                }
            }
            done.signal()
        }
    }

    /// How many are still connected (the server may refuse some).
    var connected: Int {
        fds.filter { fd in
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 0) > 0 else { return true }
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) != 0
        }.count
    }

    func close() {
        if reading {
            lock.withLock { stopRequested = true }
            done.wait()
        }
        fds.forEach { _ = Glibc.close($0) }
    }
}

/// Raises this process's descriptor limit so a thousand clients fit.
func raiseDescriptorLimit(to wanted: rlim_t) {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = min(max(limit.rlim_cur, wanted), limit.rlim_max)
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
