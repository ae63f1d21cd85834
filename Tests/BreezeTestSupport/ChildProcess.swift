import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program started for a test or a benchmark (gpsd, gpsfake, dbus-daemon, python3, breezed).
///
/// Started with `posix_spawn` rather than Foundation's `Process`: on Linux, `Process.run` finds the descriptors to
/// close by copying 256 bytes of every `/proc/self/fd` entry's name, reading past the entry, and the test process
/// crashed whenever the last entry ended just before an unmapped page. Here the names are read only up to their end.
public final class ChildProcess: Sendable {
    public enum TerminationReason: Sendable {
        case exit
        case uncaughtSignal
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    public let processIdentifier: Int32
    /// The wait status once the child has been reaped.
    private let status = Mutex<Int32?>(nil)
    private let reaped = DispatchSemaphore(value: 0)

    private init(processIdentifier: Int32) {
        self.processIdentifier = processIdentifier
    }

    /// Starts `executable` with its signals as a program expects them.
    ///
    /// Threads of a Swift process block most signals and this project ignores SIGPIPE, and a child inherits both:
    /// a gpsd started plainly ignores SIGTERM and gpsfake never finishes. So the child is started through python3,
    /// which clears the signal mask and restores SIGPIPE before it executes the program.
    ///
    /// - Parameter output: where the child's standard output goes (discarded by default).
    public static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], output: Pipe? = nil,
        errorOutput: Pipe? = nil, input: Pipe? = nil, wrapper: String = resetSignalsAndExec
    ) async throws -> ChildProcess {
        try spawn(
            "/usr/bin/python3", ["-c", wrapper, executable] + arguments, environment: environment, output: output,
            errorOutput: errorOutput, input: input)
    }

    public static let resetSignalsAndExec = "import os, signal, sys\n"
        + "signal.pthread_sigmask(signal.SIG_SETMASK, [])\n"
        + "signal.signal(signal.SIGPIPE, signal.SIG_DFL)\n"
        + "os.execv(sys.argv[1], sys.argv[1:])\n"

    /// Starts `path` directly (no wrapper), with this process's environment plus `environment`. Standard input,
    /// output and error are the given pipes or /dev/null; every other descriptor is closed in the child; the child
    /// leads a process group of its own.
    public static func spawn(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], output: Pipe? = nil,
        errorOutput: Pipe? = nil, input: Pipe? = nil
    ) throws -> ChildProcess {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw SpawnError(description: "open /dev/null: \(String(cString: strerror(errno)))") }
        defer { close(null) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let standard = [
            input?.fileHandleForReading.fileDescriptor ?? null,
            output?.fileHandleForWriting.fileDescriptor ?? null,
            errorOutput?.fileHandleForWriting.fileDescriptor ?? null,
        ]
        for (target, source) in standard.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
        }
        // A descriptor that closes meanwhile makes its close fail with EBADF in the child, which posix_spawn ignores.
        for fd in openDescriptors() where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnError(description: "posix_spawn \(path): \(String(cString: strerror(result)))") }

        // The child holds its own copies now; the parent keeps only its ends of the pipes.
        try? input?.fileHandleForReading.close()
        try? output?.fileHandleForWriting.close()
        try? errorOutput?.fileHandleForWriting.close()

        let child = ChildProcess(processIdentifier: pid)
        let reaper = Thread { child.reap() }
        reaper.name = "child \(pid)"
        reaper.start()
        return child
    }

    /// The open descriptors, from /proc/self/fd, each name read only as far as its terminating zero.
    static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return Array(3..<1_024) }
        defer { closedir(directory) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        var descriptors: [Int32] = []
        while let entry = readdir(directory) {
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            if let fd = Int32(String(cString: name)), fd != dirfd(directory) { descriptors.append(fd) }
        }
        return descriptors
    }

    private func reap() {
        var waitStatus: Int32 = 0
        while waitpid(processIdentifier, &waitStatus, 0) < 0 && errno == EINTR {}
        status.withLock { $0 = waitStatus }
        reaped.signal()
    }

    public var isRunning: Bool {
        status.withLock { $0 == nil }
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() {
        guard isRunning else { return }
        reaped.wait()
        reaped.signal()  // for any other waiter
    }

    /// Blocks until the child has ended and been reaped, or `timeout` seconds pass. Returns whether it ended.
    public func waitUntilExit(timeout: Double) -> Bool {
        guard isRunning else { return true }
        guard reaped.wait(timeout: .now() + timeout) == .success else { return false }
        reaped.signal()  // for any other waiter
        return true
    }

    /// Its exit status, or the number of the signal that ended it. Only once it has ended.
    public var terminationStatus: Int32 {
        let waitStatus = status.withLock { $0 }
        precondition(waitStatus != nil, "the child is still running")
        let value = waitStatus!
        return value & 0x7F == 0 ? (value >> 8) & 0xFF : value & 0x7F
    }

    public var terminationReason: TerminationReason {
        let waitStatus = status.withLock { $0 }
        precondition(waitStatus != nil, "the child is still running")
        return waitStatus! & 0x7F == 0 ? .exit : .uncaughtSignal
    }

    /// Sends SIGTERM (while it runs: a reaped process identifier may already belong to another process).
    public func terminate() {
        signal(SIGTERM)
    }

    public func interrupt() {
        signal(SIGINT)
    }

    public func signal(_ number: Int32) {
        status.withLock { if $0 == nil { kill(processIdentifier, number) } }
    }
}
