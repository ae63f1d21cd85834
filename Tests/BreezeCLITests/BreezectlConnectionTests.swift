import BreezeCLI
import BreezeCore
import BreezeProtocol
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// breezectl against a daemon that misbehaves: silent, too chatty, or full. It must end, with the reason.
@Suite struct BreezectlConnectionTests {
    /// Runs breezectl on a thread of its own and waits for it to end, at most `deadline` seconds; nil when it
    /// did not end by then.
    static func breezectl(
        _ arguments: [String], deadline: Double = 10, isTerminal: Bool = false, environment: [String: String] = [:]
    ) async -> BreezectlRun? {
        let output = Collected()
        let errors = Collected()
        let status = Collected()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let code = BreezeCTL.main(
                arguments, environment: .init(environment), isTerminal: isTerminal,
                output: TextOutput(standard: { output.append($0) }, error: { errors.append($0) }))
            status.append(String(code))
            done.signal()
        }
        // Waited for on a thread too: a run of seconds must not hold a thread of the cooperative pool.
        guard await onDedicatedThread({ done.wait(timeout: .now() + deadline) == .success }) else { return nil }
        return BreezectlRun(status: Int32(status.value) ?? -1, output: output.value, errors: errors.value)
    }

    @Test func aDaemonThatNeverAnswersTimesOut() async throws {
        let daemon = FakeDaemon { FakeDaemon.drain($0) }
        defer { daemon.stop() }
        let started = ContinuousClock.now
        let run = try #require(
            await Self.breezectl(["--socket", daemon.path, "--timeout", "0.5", "where"]), "breezectl hung")
        #expect(run.status == 69)
        #expect(run.errors.contains("breezed did not answer within 0.5 s"), "\(run.errors)")
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func watchOnceWaitsForItsAnswerOnlyUntilTheTimeout() async throws {
        let daemon = FakeDaemon { FakeDaemon.drain($0) }
        defer { daemon.stop() }
        let run = try #require(
            await Self.breezectl(
                ["--socket", daemon.path, "--timeout", "1", "watch", "--once", "--waybar"]), "breezectl hung")
        #expect(run.status == 69)
        #expect(run.errors.contains("breezed did not answer within 1 s"), "\(run.errors)")
        // The bar still gets its line: breezed is unavailable, and why.
        let object = try JSONValue.parse(String(run.output.dropLast()))
        #expect(object["class"] == .array([.string("unavailable")]), "\(run.output)")
        #expect(object["tooltip"]?.stringValue?.contains("did not answer within 1 s") == true, "\(run.output)")
    }

    @Test(arguments: ["0", "-1", "nan", "inf", "1e300", "soon", ""])
    func aBadTimeoutIsAUsageError(value: String) async throws {
        let run = try #require(await Self.breezectl(["--socket", "/nonexistent.sock", "--timeout", value, "where"]))
        #expect(run.status == 64, "\(run.errors)")
        #expect(run.errors.contains("--timeout"), "\(run.errors)")
    }

    /// A reply line over the framer's limit used to be dropped while breezectl waited for it forever.
    @Test func aReplyOverTheLineLimitIsAnError() async throws {
        let daemon = FakeDaemon { fd in
            FakeDaemon.write(
                fd, "{\"class\":\"LOCATION\",\"name\":\"" + String(repeating: "x", count: 1 << 20) + "\",\"id\":1}\n")
            FakeDaemon.drain(fd)
        }
        defer { daemon.stop() }
        let run = try #require(
            await Self.breezectl(["--socket", daemon.path, "--timeout", "5", "here"]), "breezectl hung")
        #expect(run.status == 1)
        #expect(run.errors.contains("breezed sent a line over 1 MiB"), "\(run.errors)")
    }

    static let tooMany =
        "{\"class\":\"ERROR\",\"code\":\"too-many-clients\",\"message\":\"breezed has 1024 clients, its limit; try again later\"}\n"

    @Test func aFullDaemonsReasonIsPrinted() async throws {
        let daemon = FakeDaemon { FakeDaemon.write($0, Self.tooMany) }
        defer { daemon.stop() }
        for command in [["where"], ["here"], ["watch", "--once", "--format", "{aqi}"]] {
            let run = try #require(await Self.breezectl(["--socket", daemon.path] + command), "breezectl hung")
            #expect(run.status == 69)
            #expect(run.errors.contains("breezed has 1024 clients, its limit"), "\(command): \(run.errors)")
        }
    }

    /// The daemon wrote why and closed before the request went out: the send fails, and the reason is waiting.
    @Test func aFailedSendReadsTheReasonTheDaemonLeft() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        FakeDaemon.write(pair[1], Self.tooMany)
        close(pair[1])
        let connection = ControlConnection(descriptor: pair[0])
        #expect {
            _ = try connection.send("status")
        } throws: { error in
            let error = error as? CLIError
            return error?.kind == .unreachable && error?.message.contains("its limit") == true
        }
    }

    @Test func anErrorWithoutAnIDEndsTheWaitForAReply() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let connection = ControlConnection(descriptor: pair[0])
        let id = try connection.send("status")
        FakeDaemon.write(pair[1], "{\"class\":\"ERROR\",\"code\":\"slow-client\",\"message\":\"read nothing\"}\n")
        #expect {
            _ = try connection.reply(to: id)
        } throws: { error in
            (error as? CLIError)?.message.contains("read nothing") == true
        }
        close(pair[1])
    }

    @Test func aDaemonsErrorMessageIsEscapedOnTheTerminal() async throws {
        let daemon = FakeDaemon { fd in
            FakeDaemon.write(
                fd, "{\"class\":\"ERROR\",\"code\":\"not-found\",\"message\":\"no \\u001b[2Jcity\\u0007\",\"id\":1}\n")
            FakeDaemon.drain(fd)
        }
        defer { daemon.stop() }
        let run = try #require(await Self.breezectl(["--socket", daemon.path, "select", "Bern"]), "breezectl hung")
        #expect(run.status == 1)
        #expect(
            !run.errors.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(run.errors.debugDescription)")
        #expect(run.errors.contains("\\x1b[2Jcity\\x07"), "\(run.errors.debugDescription)")
    }
}
