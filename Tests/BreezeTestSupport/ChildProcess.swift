import Foundation
import Synchronization

/// Starts helper programs (gpsfake, gpsd, python3) for tests and benchmarks.
public enum ChildProcess {
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
    ) async throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", wrapper, executable] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let input { process.standardInput = input } else { process.standardInput = FileHandle.nullDevice }
        if let output { process.standardOutput = output } else { process.standardOutput = FileHandle.nullDevice }
        if let errorOutput { process.standardError = errorOutput } else { process.standardError = FileHandle.nullDevice }
        try await DescriptorGate.shared.spawning { try process.run() }
        return process
    }

    public static let resetSignalsAndExec = "import os, signal, sys\n"
        + "signal.pthread_sigmask(signal.SIG_SETMASK, [])\n"
        + "signal.signal(signal.SIGPIPE, signal.SIG_DFL)\n"
        + "os.execv(sys.argv[1], sys.argv[1:])\n"
}

/// Keeps `Process.run` apart from tests that open and close hundreds of descriptors at once: Foundation's
/// `Process.run` crashed (a bad memcpy) when another thread did that while it started a child.
public final class DescriptorGate: Sendable {
    public static let shared = DescriptorGate()

    private struct State {
        var spawning = 0
        var churning = false
    }

    private let state = Mutex(State())

    /// Runs `body` (a `Process.run`) when no test is churning descriptors.
    public func spawning<T>(_ body: () throws -> T) async throws -> T {
        while true {
            let entered = state.withLock { state -> Bool in
                // One start at a time, and none while a test churns descriptors: Foundation's Process.run has been
                // seen to crash (a bad memcpy) when it overlapped either.
                guard !state.churning, state.spawning == 0 else { return false }
                state.spawning += 1
                return true
            }
            if entered { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        defer { state.withLock { $0.spawning -= 1 } }
        return try body()
    }

    /// Runs `body`, which opens and closes many descriptors, while no child is being started.
    public func churning<T>(_ body: () async throws -> T) async throws -> T {
        while true {
            let entered = state.withLock { state -> Bool in
                guard !state.churning, state.spawning == 0 else { return false }
                state.churning = true
                return true
            }
            if entered { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        defer { state.withLock { $0.churning = false } }
        return try await body()
    }
}
