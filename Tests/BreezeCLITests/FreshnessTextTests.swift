import BreezeCLI
import Foundation
import Testing

/// Data sent as fresh that the wall clock has made old since (a clock set forward, a resume from suspend) is shown
/// stale, never "fresh, 3 days old"; a time ahead of this clock is no negative age.
@Suite struct FreshnessTextTests {
    /// `AIR` fetched `age` seconds ago, as breezed sent it (`fresh`), with `fresh_for_s` when given.
    static func air(fetchedAgo age: Double, freshFor: Int?) -> [UInt8] {
        let fetched = Date(timeIntervalSinceNow: -age).formatted(.iso8601)
        let freshness = freshFor.map { #","fresh_for_s":\#($0)"# } ?? ""
        return Array(
            (#"{"class":"AIR","state":"fresh","place":"Bern, Switzerland","place_id":2661552,"fetched":"\#(fetched)","#
                + #""age_s":0\#(freshness),"us_aqi":26,"category":"good","label":"Good"}"#).utf8)
    }

    @Test func dataTheClockMadeDaysOldIsShownStale() {
        let text = ReplyText.render(Self.air(fetchedAgo: 3 * 86_400, freshFor: 3_600), command: "air")
        #expect(text.contains("(stale, 3 days old)"), "\(text)")
        #expect(!text.contains("fresh"), "\(text)")
    }

    @Test func dataWithinItsFreshnessStaysFresh() {
        let text = ReplyText.render(Self.air(fetchedAgo: 600, freshFor: 3_600), command: "air")
        #expect(text.contains("(fresh, 10 min old)"), "\(text)")
    }

    @Test func aDaemonThatDoesNotSayHowLongDataStaysFreshIsTakenAtItsWord() {
        let text = ReplyText.render(Self.air(fetchedAgo: 3 * 86_400, freshFor: nil), command: "air")
        #expect(text.contains("(fresh, 3 days old)"), "\(text)")
    }

    @Test func aFetchAheadOfThisClockIsNoNegativeAge() {
        let text = ReplyText.render(Self.air(fetchedAgo: -600, freshFor: 3_600), command: "air")
        #expect(text.contains("(fresh, 0 s old)"), "\(text)")
    }
}
