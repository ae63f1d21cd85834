import Glibc

/// A thread of its own for a loop that blocks (a socket, a bus): started at once, detached, named for `ps` and
/// debuggers (the kernel keeps 15 bytes of the name).
public enum DedicatedThread {
    /// Starts `body` on a new thread; a thread that cannot be created stops the process (as Foundation's Thread
    /// does), since the caller cannot work without it.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadBody(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, threadEntry, context)
        guard created == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            fatalError("thread \(name) could not be started: \(String(cString: strerror(created)))")
        }
        pthread_detach(thread)
    }
}

private final class ThreadBody: Sendable {
    let name: String
    let run: @Sendable () -> Void

    init(name: String, run: @escaping @Sendable () -> Void) {
        self.name = name
        self.run = run
    }

    /// Names the calling thread (pthread_setname_np is not visible to Swift here; the kernel's file is).
    func nameThread() {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}

private let threadEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
    let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
    body.nameThread()
    body.run()
    return nil
}
