import BreezeCore
import BreezeGPSD
import BreezeTestSupport
import Testing

/// The filter from report lines to source events, without sockets.
@Suite struct FixFilterTests {
    func events(_ lines: [String]) -> [LocationSourceEvent] {
        var filter = FixFilter()
        return lines.compactMap { filter.event(forLine: Array($0.utf8), source: .gpsd) }
    }

    func fixes(_ lines: [String]) -> [Coordinate] {
        events(lines).compactMap { if case .fix(let fix) = $0 { fix.coordinate } else { nil } }
    }

    static func tpv(_ latitude: Double, _ time: String?) -> String {
        FakeGPSD.tpv(latitude, 7.5, time: time.map { "2024-05-01T10:\($0)Z" })
    }

    @Test func twoReportsOfOneEpochAreOneFix() {
        #expect(fixes([Self.tpv(1, "00:00.000"), Self.tpv(1, "00:00.000"), Self.tpv(2, "00:01.000")]).count == 2)
    }

    @Test func aBadLineIsRejectedOncePerStretchNamingTheField() {
        let bad = #"{"class":"TPV","mode":99,"lat":1,"lon":2}"#
        let result = events([Self.tpv(1, "00:00.000"), bad, bad, bad, Self.tpv(2, "00:01.000"), bad])
        let rejections = result.compactMap { if case .rejected(let why) = $0 { why } else { nil } }
        #expect(rejections.count == 2)
        #expect(rejections.first?.contains("\"mode\"") == true)
    }

    @Test func aJumpBackIsIgnoredUntilTimePassesTheLastUsedTime() {
        let lines = [
            Self.tpv(1, "05:00.000"), Self.tpv(2, "00:00.000"), Self.tpv(3, "00:01.000"), Self.tpv(4, "04:59.999"),
            Self.tpv(5, "05:00.000"), Self.tpv(6, "05:01.000"),
        ]
        let result = events(lines)
        #expect(fixes(lines).map(\.latitude) == [1, 6])
        let rejections = result.compactMap { if case .rejected(let why) = $0 { why } else { nil } }
        #expect(rejections == ["the receiver's time went back 300 s: its fixes are ignored until the time moves forward again"])
    }

    @Test func aClockThatWentBackAndRunsSteadilyIsTrustedAfterTenEpochs() {
        let back = (0..<12).map { Self.tpv(Double($0), String(format: "00:%02d.000", $0)) }
        let used = fixes([Self.tpv(80, "30:00.000")] + back).map(\.latitude)
        #expect(used == [80, 9, 10, 11])
    }

    @Test func aLateReportWithinASecondIsDroppedSilently() {
        let result = events([Self.tpv(1, "00:01.000"), Self.tpv(2, "00:00.200")])
        #expect(result.count == 1)
    }

    @Test func noFixIsReportedOncePerStretch() {
        let noFix = #"{"class":"TPV","mode":1}"#
        let result = events([noFix, noFix, Self.tpv(1, "00:00.000"), noFix, noFix])
        #expect(result.filter { $0 == .noFix }.count == 2)
    }

    @Test func fixesWithoutTimeAreNewWhenThePositionMoves() {
        #expect(fixes([Self.tpv(1, nil), Self.tpv(1, nil), Self.tpv(2, nil), Self.tpv(1, nil)]).map(\.latitude) == [1, 2, 1])
    }
}

/// Lines cut out of gpsd's byte stream, with the bound on their length.
@Suite struct GPSDLineFramerTests {
    @Test func splitsLinesAcrossReads() {
        var framer = GPSDLineFramer()
        #expect(framer.append(Array("{\"a\":1}\n{\"b\"".utf8)) == [Array("{\"a\":1}".utf8)])
        #expect(framer.append(Array(":2}\n".utf8)) == [Array("{\"b\":2}".utf8)])
        #expect(framer.pendingCount == 0)
    }

    @Test func dropsAnOverlongLineWholeNotJustItsHead() {
        var framer = GPSDLineFramer()
        let limit = GPSDLineFramer.maximumLineLength
        var lines: [[UInt8]] = []
        // The tail of an overlong line would be a valid TPV if read as a line of its own.
        let tail = Array(#"{"class":"TPV","mode":3,"lat":-33.86,"lon":151.2}"#.utf8)
        for _ in 0..<(limit / 1000 + 2) { lines += framer.append([UInt8](repeating: 0x78, count: 1000)) }
        #expect(framer.pendingCount == 0)
        lines += framer.append(tail + [0x0A] + Array("{}\n".utf8))
        #expect(lines == [Array("{}".utf8)])
    }

    /// Random lines, some about the limit's length, cut into random reads: the lines that come out are the ones at
    /// most the limit long, whole, in order, whichever read they started and ended in. The generator is seeded: the
    /// system's makes a system call for each of the megabytes drawn, which held a cooperative thread for seconds.
    @Test func linesComeOutWholeHoweverTheReadsCutThem() {
        var random = SplitMix64(seed: 0x5EED_F12A)
        let limit = GPSDLineFramer.maximumLineLength
        for _ in 0..<20 {
            var stream: [UInt8] = []
            var expected: [[UInt8]] = []
            for _ in 0..<Int.random(in: 1...20, using: &random) {
                let length = Bool.random(using: &random)
                    ? Int.random(in: 0...300, using: &random) : Int.random(in: (limit - 2)...(limit + 2), using: &random)
                let line = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }.map { $0 == 0x0A ? 0x20 : $0 }
                stream += line + [0x0A]
                if length <= limit { expected.append(line) }
            }
            var framer = GPSDLineFramer()
            var lines: [[UInt8]] = []
            var start = 0
            while start < stream.count {
                let end = min(stream.count, start + Int.random(in: 1...(Bool.random(using: &random) ? 40 : 20_000), using: &random))
                lines += framer.append(stream[start..<end])
                start = end
            }
            #expect(lines == expected)
            #expect(framer.pendingCount == 0)
        }
    }

    @Test func keepsALineOfExactlyTheLimit() {
        var framer = GPSDLineFramer()
        let line = [UInt8](repeating: 0x20, count: GPSDLineFramer.maximumLineLength)
        #expect(framer.append(line + [0x0A]) == [line])
        #expect(framer.append([UInt8](repeating: 0x20, count: GPSDLineFramer.maximumLineLength + 1) + [0x0A]).isEmpty)
    }
}
