import BreezeCLI
import Testing

/// The keys the interactive search reads from a raw terminal's bytes.
@Suite struct KeyReaderTests {
    static func keys(_ bytes: [UInt8]) -> [Key] {
        var reader = KeyReader()
        return reader.push(bytes)
    }

    @Test(arguments: [
        ([0x0D], Key.enter), ([0x0A], .enter), ([0x7F], .backspace), ([0x08], .backspace), ([0x03], .interrupt),
        ([0x04], .escape), ([0x0E], .down), ([0x10], .up), ([0x15], .clearLine), ([0x13], .save),
        ([0x1B, 0x5B, 0x41], .up), ([0x1B, 0x5B, 0x42], .down), ([0x1B, 0x4F, 0x41], .up), ([0x1B, 0x4F, 0x42], .down),
    ] as [([UInt8], Key)])
    func aControlKeyOrSequenceIsItsKey(bytes: [UInt8], key: Key) {
        #expect(Self.keys(bytes) == [key])
    }

    @Test func textRunsTogetherAndKeepsItsUTF8() {
        #expect(Self.keys(Array("zür 東京".utf8)) == [.text("zür 東京")])
        #expect(Self.keys(Array("ab".utf8) + [0x0D] + Array("c".utf8)) == [.text("ab"), .enter, .text("c")])
    }

    @Test func aCharacterSplitBetweenReadsWaitsForItsRest() {
        var reader = KeyReader()
        let bytes = Array("ü".utf8)
        #expect(reader.push(bytes[..<1]).isEmpty)
        #expect(reader.push(bytes[1...]) == [.text("ü")])
    }

    @Test func aLoneEscapeIsTheEscapeKeyOnceNothingFollows() {
        var reader = KeyReader()
        #expect(reader.push([0x1B]).isEmpty)
        #expect(reader.isWaiting)
        #expect(reader.flushEscape() == [.escape])
        #expect(!reader.isWaiting)
    }

    @Test func anArrowSplitBetweenReadsIsOneKey() {
        var reader = KeyReader()
        #expect(reader.push([0x1B]).isEmpty)
        #expect(reader.push([0x5B]).isEmpty)
        #expect(reader.push([0x42]) == [.down])
        #expect(!reader.isWaiting)
    }

    @Test func otherSequencesAndControlsAreIgnored() {
        // Right arrow, F5 (ESC [ 1 5 ~), a bell, a tab: none is a key of the view.
        #expect(Self.keys([0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x31, 0x35, 0x7E, 0x07, 0x09]) == [])
        // An Escape followed by a letter (Alt-x): Escape, then the letter.
        #expect(Self.keys([0x1B, 0x78]) == [.escape, .text("x")])
        // Bytes that are not UTF-8 are dropped, the text around them kept.
        #expect(Self.keys([0x61, 0xFF, 0x62]) == [.text("ab")])
        #expect(Self.keys([0x61, 0xC3, 0x62]) == [.text("ab")])
    }

    @Test func anEndlessSequenceIsDropped() {
        var reader = KeyReader()
        #expect(reader.push([0x1B, 0x5B] + [UInt8](repeating: 0x31, count: 100)).isEmpty)
        #expect(!reader.isWaiting)
        #expect(reader.push(Array("a".utf8)) == [.text("a")])
    }
}
