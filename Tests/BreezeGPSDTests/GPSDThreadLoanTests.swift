import BreezeCore
import BreezeGPSD
@_spi(Executors) import BreezeSystem
import Foundation
import Synchronization
import Testing

/// The source's reader thread lent to the executor its reader runs on (`ThreadLoan`): the work of each fix runs on
/// gpsd's thread, where without the loan it runs on a thread of the executor's, woken for it.
@Suite struct GPSDThreadLoanTests {
    /// The names of the threads a reader on a pool of its own ran on, one per fix, for `count` fixes sent one at a
    /// time, each once every pool thread sleeps (so that only a loan can run the reader at once).
    static func readerThreads(lending: Bool, count: Int) async throws -> [String] {
        let pool = TaskPool(threads: 2)
        let gpsd = try FakeGPSD()
        defer { gpsd.stop() }
        let source = GPSDSource(
            address: GPSDAddress(host: "127.0.0.1", port: gpsd.port), threadLoan: lending ? pool.threadLoan : .none)
        let names = Names()
        let reader = Task(executorPreference: pool) {
            for await event in source.events() {
                if case .fix = event { names.add(threadName()) }
            }
        }
        defer {
            source.stop()
            reader.cancel()
        }
        try #require(await gpsd.waitForClient(timeout: 10))
        for sent in 0..<count {
            while pool.sleepingThreads < 2 { try await Task.sleep(for: .milliseconds(1)) }
            let time = String(format: "2024-05-01T10:00:%02d.000Z", sent)
            try #require(gpsd.send([FakeGPSD.tpv(46.5 + Double(sent) / 100, 7.6, time: time)]))
            let deadline = ContinuousClock.now + .seconds(10)
            while names.count <= sent, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            try #require(names.count == sent + 1, "fix \(sent) did not reach the reader")
        }
        return names.all
    }

    final class Names: Sendable {
        private let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var count: Int { names.withLock { $0.count } }
        var all: [String] { names.withLock { $0 } }
    }

    /// The calling thread's name, as the kernel keeps it.
    static func threadName() -> String {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return name.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func withALoanEachFixIsReadOnGpsdsThread() async throws {
        let names = try await Self.readerThreads(lending: true, count: 10)
        #expect(names == Array(repeating: "breeze.gpsd", count: 10))
    }

    @Test func withoutOneEachFixIsReadOnAPoolThread() async throws {
        let names = try await Self.readerThreads(lending: false, count: 10)
        #expect(!names.contains("breeze.gpsd"))
    }
}
