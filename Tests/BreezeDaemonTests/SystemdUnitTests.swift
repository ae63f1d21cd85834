import BreezeTestSupport
import Foundation
import Testing

/// The unit files as systemd judges them: `systemd-analyze verify` clean, `security` exposure at most 2.0.
// systemd-analyze is optional (containers often lack it): without it the suite is reported skipped, with the reason.
@Suite(.enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "skipped: needs systemd-analyze"))
struct SystemdUnitTests {
    static let units = BreezedProcess.root + "/systemd"

    /// Runs systemd-analyze and returns its status and its output (stdout and stderr together).
    func analyze(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
        let output = Pipe()
        let process = try await ChildProcess.launch(
            "/usr/bin/systemd-analyze", arguments, environment: environment, output: output, errorOutput: output)
        let data = await onDedicatedThread { output.fileHandleForReading.readDataToEndOfFile() }
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func theServiceIsHardenedToAnExposureOfAtMostTwo() async throws {
        let (status, output) = try await analyze(["security", "--offline=true", Self.units + "/breezed.service"])
        #expect(status == 0, "\(shortened(output))")
        let line = try #require(output.split(separator: "\n").first { $0.contains("Overall exposure level") })
        // "→ Overall exposure level for breezed.service: 1.4 OK 🙂": the number after the first ": " (without a
        // terminal, TERM unset, the face is ":-)", so not the text after the last colon).
        let score = try #require(
            line.components(separatedBy: ": ").dropFirst().first?.split(separator: " ").first.flatMap { Double($0) },
            "\(line)")
        print("systemd-analyze security: \(line)")
        #expect(score <= 2.0)
    }

    @Test func theUnitsVerifyCleanly() async throws {
        // As installed: ExecStart at the built binary, the man pages on MANPATH (verify checks Documentation=).
        try BreezedProcess.requireBinaries()
        let folder = try BreezedProcess.makeFolder()
        for (page, section) in [("breezectl.1", "man1"), ("breezed.conf.5", "man5"), ("breezed.8", "man8")] {
            try FileManager.default.createDirectory(atPath: "\(folder)/man/\(section)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: BreezedProcess.root + "/docs/man/" + page, toPath: "\(folder)/man/\(section)/\(page)")
        }
        let service = try String(contentsOfFile: Self.units + "/breezed.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/breezed", with: BreezedProcess.breezed)
        try service.write(toFile: folder + "/breezed.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: Self.units + "/breezed.socket", toPath: folder + "/breezed.socket")
        let (status, output) = try await analyze(
            ["verify", folder + "/breezed.service", folder + "/breezed.socket"], environment: ["MANPATH": folder + "/man"])
        #expect(status == 0)
        #expect(output.isEmpty, "\(shortened(output))")
    }
}
