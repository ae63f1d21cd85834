import BreezeTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The real `breezed` and `breezectl` binaries, as `scripts/test` builds them, run as a user would run them.
final class BreezedProcess: @unchecked Sendable {
    // @unchecked: all stored properties are constants; ChildProcess is safe to signal from any thread.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// Where the build put the binaries: beside the test bundle (`swift build --show-bin-path`, whatever the
    /// configuration), else `.build/release`. Nil when neither holds both.
    static let binFolder: String? = {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
        return [bundle, root + "/.build/release"].compactMap { $0 }.first { folder in
            ["breezed", "breezectl"].allSatisfy { FileManager.default.isExecutableFile(atPath: folder + "/" + $0) }
        }
    }()
    static let breezed = (binFolder ?? root + "/.build/release") + "/breezed"
    static let breezectl = (binFolder ?? root + "/.build/release") + "/breezectl"

    /// The daemon's tests never skip for want of the binaries: they fail, saying where they looked.
    struct MissingBinaries: Error, CustomStringConvertible {
        var description: String {
            let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "?"
            return "breezed and breezectl are neither beside the test bundle (\(bundle)) nor in \(root)/.build/release: "
                + "build them first (swift build -c release --build-tests, as scripts/test does)"
        }
    }

    static func requireBinaries() throws {
        guard binFolder != nil else { throw MissingBinaries() }
    }

    let folder: String
    let socket: String
    let process: ChildProcess
    let errors: Pipe
    /// What breezed writes to stderr, read as it comes (so a test can wait for a line), whole at its end.
    private let errorText = CollectedOutput()

    /// A fresh folder for the socket, state and cache.
    static func makeFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "breezed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        TemporaryPaths.removeAtExit(folder)
        return folder
    }

    /// Starts breezed with its socket, state and cache in `folder`, plus `arguments`, and waits for its socket.
    init(
        folder: String? = nil, _ arguments: [String], environment: [String: String] = [:], wrapper: String? = nil,
        waitForSocket: Bool = true
    ) async throws {
        try Self.requireBinaries()
        let folder = try folder ?? Self.makeFolder()
        self.folder = folder
        socket = folder + "/breezed.sock"
        errors = Pipe()
        let all = ["--socket", socket, "--state-dir", folder + "/state", "--cache-dir", folder + "/cache"] + arguments
        process = try await ChildProcess.launch(
            Self.breezed, all, environment: environment, errorOutput: errors,
            wrapper: wrapper ?? ChildProcess.resetSignalsAndExec)
        errorText.collect(from: errors.fileHandleForReading)
        if waitForSocket {
            // Up once the socket accepts a connection (the file appears at bind, a moment before listen).
            let socket = socket
            await eventually(timeout: 20) {
                guard process.isRunning else { return true }
                guard let fd = UnixSocket.connect(to: socket) else { return false }
                close(fd)
                return true
            }
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
        let deadline = TestTime.deadline(after: timeout)
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func stop() async {
        if process.isRunning { signal(SIGTERM) }
        if await exitStatus(timeout: 10) == nil { signal(SIGKILL) }
        _ = await exitStatus(timeout: 5)
    }

    /// What breezed wrote to stderr: all of it once it has ended, what it wrote so far while it runs.
    func log() -> String {
        process.isRunning ? errorText.soFar() : errorText.whole()
    }

    /// Waits until breezed has logged a line containing `text` (at most `timeout` seconds); returns whether it did.
    func waitForLog(_ text: String, timeout: Double = 10) async -> Bool {
        await eventually(timeout: timeout) { errorText.soFar().contains(text) }
    }

    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs breezectl with `arguments` and waits for it.
    static func breezectl(_ arguments: [String], environment: [String: String] = [:], asUser: String? = nil) async throws -> Result {
        try requireBinaries()
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
        let deadline = TestTime.deadline(after: timeout)
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

/// Output read on a thread of its own as the writer sends it, until the writer closes.
final class CollectedOutput: Sendable {
    private let text = Mutex(Data())
    private let ended = DispatchSemaphore(value: 0)

    func collect(from handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text.withLock { $0.append(chunk) }
            }
            ended.signal()
        }
        thread.start()
    }

    func soFar() -> String {
        String(decoding: text.withLock { $0 }, as: UTF8.self)
    }

    /// Everything, once the writer has closed; what there is so far if it has not within 5 s (a failure message
    /// asks while breezed still runs: it must not hang the test).
    func whole() -> String {
        if ended.wait(timeout: .now() + 5) == .success { ended.signal() }
        return soFar()
    }
}
