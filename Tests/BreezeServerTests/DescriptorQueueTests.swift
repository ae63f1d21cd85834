import BreezeServer
import Testing

@Suite struct DescriptorQueueTests {
    @Test func servesInTheOrderQueuedEachOnce() {
        var queue = DescriptorQueue()
        for fd: Int32 in [5, 3, 9, 3, 5] { queue.append(fd) }
        #expect(queue.count == 3)
        #expect(queue.popFirst() == 5)
        queue.append(5)  // back of the queue once served
        #expect([queue.popFirst(), queue.popFirst(), queue.popFirst(), queue.popFirst()] == [3, 9, 5, nil])
        #expect(queue.isEmpty)
    }

    @Test func aRemovedDescriptorIsSkippedAndMayComeBackAtTheEnd() {
        var queue = DescriptorQueue()
        for fd: Int32 in [1, 2, 3] { queue.append(fd) }
        queue.remove(2)
        #expect(!queue.contains(2))
        queue.append(2)
        #expect([queue.popFirst(), queue.popFirst(), queue.popFirst(), queue.popFirst()] == [1, 3, 2, nil])
    }

    @Test func keepsOrderAcrossManyTurns() {
        var queue = DescriptorQueue()
        for fd in Int32(0)..<100 { queue.append(fd) }
        var served: [Int32] = []
        // Round robin: each served descriptor goes to the back, 1,000 times over.
        for _ in 0..<1_000 {
            let fd = queue.popFirst()!
            served.append(fd)
            queue.append(fd)
        }
        #expect(served == (0..<1_000).map { Int32($0 % 100) })
        #expect(queue.count == 100)
    }
}
