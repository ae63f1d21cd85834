import BreezeCore
import Testing

@Suite struct SourceLifecycleTests {
    @Test func theStreamIsHandedOutOnce() {
        var lifecycle = SourceLifecycle()
        let first = lifecycle.start()
        let second = lifecycle.start()
        #expect(first && !second)
        #expect(lifecycle.isStarted && !lifecycle.isStopped)
    }

    @Test func aStoppedSourceNeverStarts() {
        var lifecycle = SourceLifecycle()
        lifecycle.stop()
        let started = lifecycle.start()
        #expect(!started)
        #expect(lifecycle.isStopped && !lifecycle.isStarted)
    }
}
