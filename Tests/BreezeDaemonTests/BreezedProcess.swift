import BreezeTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real `breezed` and `breezectl` binaries, as `scripts/test` builds them, run as a user would run them.
final class BreezedProcess: @unchecked Sendable {
    // @unchecked: all stored properties are constants; ChildProcess is safe to signal from any thread.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let breezed = root + "/.build/release/breezed"
    static let breezectl = root + "/.build/release/breezectl"
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: breezed) && FileManager.default.isExecutableFile(atPath: breezectl)
    }

    let folder: String
    let socket: String
    let process: ChildProcess
    let errors: Pipe

    /// A fresh folder for the socket, state and cache.
    static func makeFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "breezed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Starts breezed with its socket, state and cache in `folder`, plus `arguments`, and waits for its socket.
    init(
        folder: String? = nil, _ arguments: [String], environment: [String: String] = [:], wrapper: String? = nil,
        waitForSocket: Bool = true
    ) async throws {
        let folder = try folder ?? Self.makeFolder()
        self.folder = folder
        socket = folder + "/breezed.sock"
        errors = Pipe()
        let all = ["--socket", socket, "--state-dir", folder + "/state", "--cache-dir", folder + "/cache"] + arguments
        process = try await ChildProcess.launch(
            Self.breezed, all, environment: environment, errorOutput: errors,
            wrapper: wrapper ?? ChildProcess.resetSignalsAndExec)
        if waitForSocket {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline, process.isRunning, !FileManager.default.fileExists(atPath: socket) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A daemon a test left running (a failed expectation before `stop()`) is killed, not left behind.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to end; returns its status, or nil on timeout.
    func exitStatus(timeout: Double = 10) async -> Int32? {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func stop() async {
        if process.isRunning { signal(SIGTERM) }
        if await exitStatus(timeout: 10) == nil { signal(SIGKILL) }
        _ = await exitStatus(timeout: 5)
    }

    /// What breezed wrote to stderr (after it ended).
    func log() -> String {
        String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs breezectl with `arguments` and waits for it.
    static func breezectl(_ arguments: [String], environment: [String: String] = [:], asUser: String? = nil) async throws -> Result {
        let output = Pipe()
        let errors = Pipe()
        var executable = breezectl
        var all = arguments
        if let asUser {
            executable = "/usr/bin/setpriv"
            all = ["--reuid=\(asUser)", "--regid=\(asUser)", "--clear-groups", breezectl] + arguments  // numeric ids
        }
        let process = try await ChildProcess.launch(
            executable, all, environment: environment.merging(["NO_COLOR": "1"]) { a, _ in a }, output: output,
            errorOutput: errors)
        let data = await onDedicatedThread { output.fileHandleForReading.readDataToEndOfFile() }
        let errorData = await onDedicatedThread { errors.fileHandleForReading.readDataToEndOfFile() }
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        return Result(
            status: process.terminationStatus, output: String(decoding: data, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self))
    }

    func ctl(_ arguments: [String]) async throws -> Result {
        try await Self.breezectl(["--socket", socket] + arguments)
    }

    /// Runs breezectl until `condition` holds for its output (or `timeout`); returns the last result.
    func ctl(_ arguments: [String], timeout: Double = 30, until condition: (Result) -> Bool) async throws -> Result {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var result = try await ctl(arguments)
        while !condition(result) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            result = try await ctl(arguments)
        }
        return result
    }
}

/// A JSON object printed by breezectl.
func object(_ text: String) -> [String: Any] {
    let line = text.split(separator: "\n").first.map(String.init) ?? ""
    return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
}
