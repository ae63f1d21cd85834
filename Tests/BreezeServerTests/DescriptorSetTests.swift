import BreezeServer
import BreezeTestSupport
import Testing

/// The set of descriptors the socket loop marks clients in: membership, the count, and the order it visits them in.
@Suite struct DescriptorSetTests {
    @Test func anEmptySetHoldsNothing() {
        let set = DescriptorSet()
        #expect(set.isEmpty)
        #expect(set.count == 0)
        #expect(Array(set) == [])
        #expect(!set.contains(0))
        #expect(!set.contains(-1))
        #expect(!set.contains(5_000))
    }

    @Test func membersAreVisitedInAscendingOrderAcrossWords() {
        var set = DescriptorSet()
        for fd: Int32 in [200, 0, 63, 64, 1, 127, 128, 4_095] { set.insert(fd) }
        #expect(Array(set) == [0, 1, 63, 64, 127, 128, 200, 4_095])
        #expect(set.count == 8)
    }

    @Test func insertAndRemoveSayWhetherTheyChangedAnything() {
        var set = DescriptorSet()
        let results = [set.insert(7), set.insert(7), set.remove(7), set.remove(7), set.remove(9_999), set.remove(-3)]
        #expect(results == [true, false, true, false, false, false])
        #expect(set.isEmpty)
    }

    @Test func anEmptiedSetIsEmptyAndTakesMembersAgain() {
        var set = DescriptorSet()
        set.formUnion([3, 90, 700] as [Int32])
        set.removeAll()
        #expect(set.isEmpty && Array(set) == [] && !set.contains(90))
        set.insert(90)
        #expect(Array(set) == [90] && set.count == 1)
    }

    @Test func aCopyIsIndependentOfTheOriginal() {
        var original = DescriptorSet()
        original.insert(4)
        var copy = original
        copy.insert(5)
        original.remove(4)
        #expect(Array(original) == [])
        #expect(Array(copy) == [4, 5])
    }

    /// Random inserts, removals, unions and emptyings, checked against `Set` after every step.
    @Test func behavesAsASetOfDescriptors() {
        var random = SplitMix64(seed: 0xD5)
        var set = DescriptorSet()
        var model = Set<Int32>()
        for step in 0..<20_000 {
            let fd = Int32.random(in: 0..<(Bool.random(using: &random) ? 70 : 2_100), using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<50:
                let inserted = set.insert(fd)
                #expect(inserted == model.insert(fd).inserted)
            case 50..<95:
                let removed = set.remove(fd)
                #expect(removed == (model.remove(fd) != nil))
            case 95..<99:
                var other = DescriptorSet()
                let added = (0..<4).map { _ in Int32.random(in: 0..<300, using: &random) }
                other.formUnion(added)
                set.formUnion(other)
                model.formUnion(added)
            default:
                set.removeAll()
                model.removeAll()
            }
            #expect(set.count == model.count)
            #expect(set.contains(fd) == model.contains(fd))
            if step.isMultiple(of: 500) { #expect(Array(set) == model.sorted()) }
        }
        #expect(Array(set) == model.sorted())
    }
}
