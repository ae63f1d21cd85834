import Foundation

/// A fixture server in Python (`Tests/Fixtures/…`), started on a free loopback port that it prints on its first
/// line of output.
public enum FixtureServer {
    /// The path of a script in `Tests/Fixtures`.
    public static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name)").path
    }

    /// Starts `script` with `arguments` and returns the process and the port it listens on; `name` is for the error
    /// when it does not start.
    public static func launch(
        _ script: String, _ arguments: [String], name: String
    ) async throws -> (process: ChildProcess, port: Int) {
        let output = Pipe()
        let process = try await ChildProcess.launch("/usr/bin/python3", [script] + arguments, output: output)
        let handle = output.fileHandleForReading
        let line = await onDedicatedThread { () -> String in
            var bytes: [UInt8] = []
            while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != 10 {
                bytes.append(first)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let port = Int(line) else {
            process.terminate()
            throw WebFixture.FixtureError(message: "\(name) did not start: \(line)")
        }
        return (process, port)
    }
}
