import BreezeProtocol
import Testing

@Suite struct LineFramerTests {
    @Test func splitsLinesAcrossReads() {
        var framer = LineFramer()
        #expect(framer.push(Array("{\"command\":".utf8)) == [])
        #expect(framer.push(Array("\"status\"}\n{\"comm".utf8)) == [.line("{\"command\":\"status\"}")])
        #expect(framer.pendingCount == 6)
        #expect(framer.push(Array("and\":1}\r\n\n".utf8)) == [.line("{\"command\":1}"), .line("")])
    }

    @Test func rejectsAnOverlongLineOnceAndRecovers() {
        var framer = LineFramer(maximumLength: 16)
        let outputs = framer.push(Array(String(repeating: "x", count: 100).utf8) + Array("\nok\n".utf8))
        #expect(outputs == [.tooLong, .line("ok")])
        #expect(framer.pendingCount == 0)
    }

    @Test func holdsNoMoreThanTheLimitWhileALineRunsOn() {
        var framer = LineFramer(maximumLength: 1_024)
        for _ in 0..<1_000 { _ = framer.push([UInt8](repeating: 0x41, count: 4_096)) }
        #expect(framer.pendingCount <= 1_024)
    }

    @Test(arguments: [[0xFF, 0xFE, 0x0A], [0x61, 0x00, 0x62, 0x0A], [0xC3, 0x0A]] as [[UInt8]])
    func rejectsBinary(bytes: [UInt8]) {
        var framer = LineFramer()
        #expect(framer.push(bytes) == [.invalidText])
    }

    /// Plain ASCII takes the quick way to text; every byte under 0x80 but NUL, and a byte over it, must come out
    /// as the validating way makes them.
    @Test func everyASCIIByteButNULIsTextAndTheRestAsBefore() {
        var framer = LineFramer()
        let ascii = (1...0x7F).map(UInt8.init).filter { $0 != 0x0A }
        #expect(framer.push(ascii + [0x0A]) == [.line(String(decoding: ascii, as: UTF8.self))])
        #expect(framer.push(ascii + [0x00, 0x0A]) == [.invalidText])
        #expect(framer.push(ascii + [0xC3, 0xA9, 0x0A]) == [.line(String(decoding: ascii, as: UTF8.self) + "é")])
        #expect(framer.push(ascii + [0xC3, 0x0A]) == [.invalidText])
        #expect(framer.push([0x61, 0x0D, 0x0A]) == [.line("a")])
    }

    @Test func keepsUTF8Text() {
        var framer = LineFramer()
        #expect(framer.push(Array("{\"q\":\"Zürich\"}\n".utf8)) == [.line("{\"q\":\"Zürich\"}")])
    }
}
