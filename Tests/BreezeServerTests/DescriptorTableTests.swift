import BreezeServer
import Testing

/// The table of values by file descriptor: lookups, the count, removal, and the order it visits values in.
@Suite struct DescriptorTableTests {
    @Test func anEmptyTableHoldsNothing() {
        let table = DescriptorTable<String>()
        #expect(table.count == 0)
        #expect(table.values == [])
        #expect(table[0] == nil)
        #expect(!table.contains(0))
        #expect(!table.contains(-1))
        #expect(!table.contains(1_000))
    }

    @Test func valuesAreFoundByDescriptorAndCounted() {
        var table = DescriptorTable<String>()
        table[5] = "five"
        table[2] = "two"
        table[9] = "nine"
        #expect(table.count == 3)
        #expect(table[5] == "five")
        #expect(table[2] == "two")
        #expect(table[9] == "nine")
        #expect(table[3] == nil)
        #expect(table[10] == nil)
        #expect(table.contains(9))
        #expect(!table.contains(8))
        #expect(!table.contains(-5))
    }

    @Test func descriptorZeroIsADescriptorLikeAnyOther() {
        var table = DescriptorTable<String>()
        table[0] = "standard input"
        #expect(table.contains(0))
        #expect(table[0] == "standard input")
        #expect(table.count == 1)
        #expect(table.removeValue(for: 0) == "standard input")
        #expect(table.count == 0)
    }

    @Test func valuesAreVisitedInDescriptorOrder() {
        var table = DescriptorTable<Int>()
        for fd: Int32 in [7, 3, 11, 0, 4] { table[fd] = Int(fd) * 10 }
        #expect(table.values == [0, 30, 40, 70, 110])
        var seen: [Int] = []
        table.updateEach { value in
            seen.append(value)
            value += 1
        }
        #expect(seen == [0, 30, 40, 70, 110])
        #expect(table.values == [1, 31, 41, 71, 111])
    }

    @Test func replacingAValueKeepsTheCount() {
        var table = DescriptorTable<String>()
        table[4] = "a"
        table[4] = "b"
        #expect(table.count == 1)
        #expect(table[4] == "b")
    }

    @Test func settingNilRemovesAndIsCountedOnce() {
        var table = DescriptorTable<String>()
        table[1] = "one"
        table[2] = "two"
        table[1] = nil
        #expect(table.count == 1)
        #expect(!table.contains(1))
        table[1] = nil
        table[7] = nil
        #expect(table.count == 1)
        #expect(table.values == ["two"])
    }

    @Test func removeValueReturnsWhatWasThere() {
        var table = DescriptorTable<String>()
        table[3] = "three"
        #expect(table.removeValue(for: 3) == "three")
        #expect(table.removeValue(for: 3) == nil)
        #expect(table.removeValue(for: 99) == nil)
        #expect(table.removeValue(for: -1) == nil)
        #expect(table.count == 0)
        #expect(!table.contains(3))
    }

    @Test func changesThroughTheSubscriptHappenInPlace() {
        var table = DescriptorTable<[Int]>()
        table[6] = [1]
        table[6]?.append(2)
        #expect(table[6] == [1, 2])
        #expect(table.count == 1)
    }

    @Test func removeAllEmptiesTheTable() {
        var table = DescriptorTable<Int>()
        for fd: Int32 in 0..<20 { table[fd] = Int(fd) }
        #expect(table.count == 20)
        table.removeAll()
        #expect(table.count == 0)
        #expect(table.values == [])
        #expect(!table.contains(0))
        table[2] = 2
        #expect(table.count == 1)
        #expect(table.values == [2])
    }
}
