import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A daemon with nothing to do sleeps: no thread of it wakes on a timer.
@Suite struct IdleWakeupTests {
    /// Voluntary context switches of every thread of `pid` so far: a thread that wakes and sleeps again makes one.
    /// Involuntary ones (a thread that was running, preempted by other work on a busy machine) are not wake-ups.
    private func switches(_ pid: Int32) throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.reduce(0) { total, task in
            // /proc files report no size: read to the end, not by the size.
            guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/task/\(task)/status") else { return total }
            defer { try? file.close() }
            let status = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
            return total + status.split(separator: "\n").reduce(0) { sum, line in
                guard line.hasPrefix("voluntary_ctxt_switches:"),
                    let count = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")
                else { return sum }
                return sum + count
            }
        }
    }

    @Test func anIdleDaemonDoesNotWakeOnceASecond() async throws {
        let daemon = try await BreezedProcess(["--no-gpsd", "--no-geoclue", "--offline", "--fallback-city", "Bern"])
        // Every start-up task has run once the daemon answers.
        let answered = try await daemon.ctl(["where", "--json"])
        #expect(object(answered.output)["city"] as? String == "Bern", "\(answered.output)")
        let pid = daemon.process.processIdentifier
        let before = try switches(pid)
        #expect(before > 0)
        // The window observed: a timer once a second would wake a thread four times in it.
        try await Task.sleep(for: .seconds(4))
        let woken = try switches(pid) - before
        #expect(woken <= 1, "\(woken) voluntary context switches in 4 s of idle")
        await daemon.stop()
    }

    @Test(.enabled(if: GPSFake.isAvailable, "needs gpsd"))
    func aDaemonConnectedToASilentGpsdDoesNotWake() async throws {
        // gpsd with no receiver (it wants a control socket then) greets and says nothing more.
        let port = GPSFake.freePort()
        let folder = try BreezedProcess.makeFolder()
        let gpsd = try await ChildProcess.launch("/usr/sbin/gpsd", ["-N", "-S", String(port), "-F", folder + "/gpsd.sock"])
        defer {
            // gpsd ends on SIGTERM at once; one that does not is killed, and the pool is never held long.
            gpsd.terminate()
            if !gpsd.waitUntilExit(timeout: 2) { kill(gpsd.processIdentifier, SIGKILL) }
        }
        try "[location]\nfix_timeout=1\n".write(toFile: folder + "/breezed.conf", atomically: true, encoding: .utf8)
        let daemon = try await BreezedProcess(folder: folder, [
            "--config", folder + "/breezed.conf", "--gpsd", "127.0.0.1:\(port)", "--no-geoclue", "--offline",
            "--fallback-city", "Bern", "--log-level", "info",
        ])
        // Connected, then a second without a fix: the fix timer has fired, and nothing is left to wait for.
        #expect(await daemon.waitForLog("has no location yet", timeout: 30), "\(daemon.log())")
        // The socket server trims its memory 2 s after the last activity (the start's own connection, the
        // permission published): one wake-up, waited out.
        try await Task.sleep(for: .seconds(3))
        let pid = daemon.process.processIdentifier
        let before = try switches(pid)
        try await Task.sleep(for: .seconds(4))
        let woken = try switches(pid) - before
        #expect(woken <= 1, "\(woken) voluntary context switches in 4 s connected to a silent gpsd")
        await daemon.stop()
    }
}
