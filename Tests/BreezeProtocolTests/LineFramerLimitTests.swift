import BreezeProtocol
import Testing

/// The line limit is a length a line may have, not one past it: `maximumLength` bytes pass, one more does not.
@Suite struct LineFramerLimitTests {
    @Test func aLineOfExactlyTheLimitIsALine() {
        var framer = LineFramer(maximumLength: 8)
        #expect(framer.push(Array("12345678\n".utf8)) == [.line("12345678")])
        #expect(framer.pendingCount == 0)
    }

    @Test func aLineOneByteOverTheLimitIsTooLong() {
        var framer = LineFramer(maximumLength: 8)
        #expect(framer.push(Array("123456789\nok\n".utf8)) == [.tooLong, .line("ok")])
    }

    @Test func aLineAtTheLimitArrivingInPiecesIsALine() {
        var framer = LineFramer(maximumLength: 8)
        #expect(framer.push(Array("1234".utf8)) == [])
        #expect(framer.push(Array("5678".utf8)) == [])
        #expect(framer.push(Array("\n".utf8)) == [.line("12345678")])
    }

    @Test func aCarriageReturnBeforeTheNewlineIsNotPartOfTheLine() {
        var framer = LineFramer(maximumLength: 8)
        #expect(framer.push(Array("abc\r\n".utf8)) == [.line("abc")])
    }
}
