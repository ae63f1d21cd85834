import Glibc

/// `watch`'s wait between attempts to connect: until breezed's socket, or the folder it goes in, appears or changes,
/// at most a given time. Watched with inotify rather than slept through, so that breezectl connects again as soon
/// as breezed starts (it makes its folder, then its socket).
enum SocketWait {
    /// What wakes the wait: the awaited name made, moved in or changed, or the watched folder itself gone.
    private static let events = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Returns when the socket at `path`, or the nearest of its folders not there yet, appears or changes, or after
    /// `seconds`, whichever comes first. (Without inotify, which every Linux since 2.6.13 has, it waits the whole
    /// time.)
    static func wait(for path: String, atMost seconds: Double) {
        let deadline = ContinuousClock.now + .milliseconds(Int((seconds * 1000).rounded()))
        let (folder, awaited) = nearestFolder(of: path)
        var watch = pollfd(fd: inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)), events: Int16(POLLIN), revents: 0)
        defer { if watch.fd >= 0 { close(watch.fd) } }
        if watch.fd >= 0, inotify_add_watch(watch.fd, folder, events) < 0 {
            close(watch.fd)
            watch.fd = -1
        }
        while true {
            let left = deadline - .now
            guard left > .zero else { return }
            let (whole, fraction) = left.components
            let milliseconds = Int32(clamping: whole * 1000 + fraction / 1_000_000_000_000_000 + 1)
            let ready = watch.fd >= 0 ? poll(&watch, 1, milliseconds) : poll(nil, 0, milliseconds)
            if ready < 0 && errno != EINTR { return }
            if ready > 0 && changed(awaited, readingFrom: watch.fd) { return }
        }
    }

    /// Whether the events waiting on `descriptor` name `awaited`, or say that the watched folder itself is gone.
    private static func changed(_ awaited: String, readingFrom descriptor: Int32) -> Bool {
        // Room for many events: each is a header and a name of at most NAME_MAX bytes.
        var buffer = [UInt8](repeating: 0, count: 16 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1))
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return count < 0 && errno != EAGAIN && errno != EINTR }
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        while offset + header <= count {
            let (mask, length) = buffer.withUnsafeBytes { bytes in
                let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                return (event.mask, Int(event.len))
            }
            let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW) != 0
                || String(decoding: nameBytes, as: UTF8.self) == awaited
            {
                return true
            }
            offset += header + length
        }
        return false
    }

    /// The deepest folder on `path` that exists, and the name in it that is awaited: the socket's own name when
    /// its folder is there, else the first folder missing.
    static func nearestFolder(of path: String) -> (folder: String, awaited: String) {
        var parts = (path.hasPrefix("/") ? path : "./" + path).split(separator: "/").map(String.init)
        let root = path.hasPrefix("/") ? "/" : ""
        var awaited = parts.popLast() ?? ""
        while !parts.isEmpty {
            let folder = root + parts.joined(separator: "/")
            var status = stat()
            if stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return (folder, awaited) }
            awaited = parts.removeLast()
        }
        return (root.isEmpty ? "." : root, awaited)
    }
}
