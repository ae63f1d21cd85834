import Foundation

/// Starts helper programs (gpsfake, gpsd) for tests and benchmarks.
public enum ChildProcess {
    /// Starts `executable` with its signals as a program expects them.
    ///
    /// Threads of a Swift process block most signals and this project ignores SIGPIPE, and a child inherits both:
    /// a gpsd started plainly ignores SIGTERM and gpsfake never finishes. So the child is started through python3,
    /// which clears the signal mask and restores SIGPIPE before it executes the program.
    public static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", resetSignalsAndExec, executable] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static let resetSignalsAndExec = "import os, signal, sys\n"
        + "signal.pthread_sigmask(signal.SIG_SETMASK, [])\n"
        + "signal.signal(signal.SIGPIPE, signal.SIG_DFL)\n"
        + "os.execv(sys.argv[1], sys.argv[1:])\n"
}
