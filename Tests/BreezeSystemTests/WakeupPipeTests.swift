import BreezeSystem
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The wake-up pipe: a wait ends when the descriptor is readable, when woken, or at its timeout, and says which.
@Suite struct WakeupPipeTests {
    /// A pipe's two ends, closed by the caller.
    static func pipeEnds() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    @Test func itHasAReadEndSetToCloseOnExecAndNotToBlock() {
        let wakeup = WakeupPipe()
        #expect(wakeup.readEnd >= 0)
        #expect(fcntl(wakeup.readEnd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(wakeup.readEnd, F_GETFL) & O_NONBLOCK != 0)
    }

    @Test func aReadableDescriptorEndsTheWaitWithTrue() {
        let wakeup = WakeupPipe()
        let other = Self.pipeEnds()
        defer { close(other.read); close(other.write) }
        var byte: UInt8 = 9
        #expect(write(other.write, &byte, 1) == 1)
        #expect(wakeup.wait(for: other.read, timeout: 10) == true)
    }

    @Test func aHungUpDescriptorEndsTheWaitWithTrue() {
        let wakeup = WakeupPipe()
        let other = Self.pipeEnds()
        defer { close(other.read) }
        close(other.write)
        #expect(wakeup.wait(for: other.read, timeout: 10) == true)
    }

    @Test func aWakeUpEndsTheWaitWithFalse() {
        let wakeup = WakeupPipe()
        let other = Self.pipeEnds()
        defer { close(other.read); close(other.write) }
        wakeup.wake()
        let start = ContinuousClock.now
        #expect(wakeup.wait(for: other.read, timeout: 10) == false)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aWakeUpFromAnotherThreadEndsAWaitWithoutLimit() async {
        let wakeup = WakeupPipe()
        let other = Self.pipeEnds()
        defer { close(other.read); close(other.write) }
        let waiting = Thread { wakeup.wake() }
        waiting.start()
        #expect(wakeup.wait(for: other.read, timeout: nil) == false)
    }

    @Test func theTimeoutEndsTheWaitWithFalse() {
        let wakeup = WakeupPipe()
        let other = Self.pipeEnds()
        defer { close(other.read); close(other.write) }
        let start = ContinuousClock.now
        #expect(wakeup.wait(for: other.read, timeout: 0.05) == false)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test func aWaitOnThePipeAloneEndsWithFalse() {
        let wakeup = WakeupPipe()
        wakeup.wake()
        #expect(wakeup.wait(for: nil, timeout: 10) == false)
    }

    @Test func drainEmptiesThePipeSoTheNextWaitTimesOut() {
        let wakeup = WakeupPipe()
        for _ in 0..<200 { wakeup.wake() }
        wakeup.drain()
        var byte: UInt8 = 0
        #expect(read(wakeup.readEnd, &byte, 1) == -1)
        #expect(errno == EAGAIN)
        let start = ContinuousClock.now
        _ = wakeup.wait(for: nil, timeout: 0.02)
        #expect(ContinuousClock.now - start >= .milliseconds(20))
    }
}
