import BreezeCore
import BreezeGPSD
import BreezeTestSupport
import Foundation

// Measures the CPU time the gpsd source spends while there is nothing to do: 30 s with no gpsd at all (reconnect
// attempts with backoff), then 30 s connected to a gpsd that has no receiver. Prints numbers; asserts nothing.
//     swift run -c release gpsd-idle-bench [seconds]

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func measure(_ label: String, port: Int, seconds: Double) async {
    let source = GPSDSource(address: GPSDAddress(host: "127.0.0.1", port: port))
    let counter = Task {
        var count = 0
        for await _ in source.events() { count += 1 }
        return count
    }
    let before = cpuSeconds()
    try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    let used = cpuSeconds() - before
    source.stop()
    let events = await counter.value
    print(String(format: "%@: %.3f s of CPU in %.0f s (%d source events)", label, used, seconds, events))
}

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "30") ?? 30
await measure("no gpsd running (reconnecting with backoff)", port: GPSFake.freePort(), seconds: seconds)

if FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd") {
    let port = GPSFake.freePort()
    // gpsd will not run with neither a device nor a control socket: give it a control socket of its own.
    let control = NSTemporaryDirectory() + "gpsd-idle-bench-\(getpid()).sock"
    let gpsd = try await ChildProcess.launch("/usr/sbin/gpsd", ["-N", "-S", String(port), "-F", control])
    try? await Task.sleep(for: .milliseconds(500))
    await measure("connected to a gpsd without a receiver", port: port, seconds: seconds)
    gpsd.terminate()
    gpsd.waitUntilExit()
}
