public import BreezeCore
import FoundationEssentials
import Synchronization

/// The maximum temperature on today's calendar day (at the place) in past decades and this year.
///
/// This year's value comes from the forecast API (the archive lags about five days); past years from the archive,
/// one single-day request each, since Open-Meteo counts a long date range as many calls. Past values never change,
/// so they are remembered: a retry or a second fetch on the same day asks only for what is missing.
public final class ClimateClient: Sendable {
    private let http: HTTPClient
    private let archive: URL
    private let forecast: URL
    private let remembered = Mutex<[String: Double?]>([:])

    public init(http: HTTPClient, archive: URL, forecast: URL) {
        self.http = http
        self.archive = archive
        self.forecast = forecast
    }

    public func fetch(_ coordinate: Coordinate) async throws(WebError) -> ClimateReport {
        let location = [
            ("latitude", WebEndpoints.degrees(coordinate.latitude)),
            ("longitude", WebEndpoints.degrees(coordinate.longitude)),
        ]
        let todayURL = WebEndpoints.url(
            forecast, "/v1/forecast",
            location + [("daily", "temperature_2m_max"), ("forecast_days", "1"), ("timezone", "auto")])
        let first = try Self.today(from: try OpenMeteoResponse.body(of: try await http.get(todayURL)))
        let date = first.date

        var points: [ClimateReport.Point] = []
        if let maximum = first.maximum { points.append(.init(year: date.year, maximum: Temperature(celsius: maximum))) }
        let years = ClimateReport.years(endingIn: date.year).dropLast()
        let result: Result<[ClimateReport.Point], WebError> = await withTaskGroup(
            of: Result<ClimateReport.Point?, WebError>.self
        ) { group in
            for year in years {
                let day = CivilDate(year: year, month: date.month, day: Self.day(date, in: year))
                let key =
                    "\(WebEndpoints.degrees(coordinate.latitude)),\(WebEndpoints.degrees(coordinate.longitude)),\(day.iso8601)"
                if let known = remembered.withLock({ $0[key] }) {
                    group.addTask { .success(known.map { .init(year: year, maximum: Temperature(celsius: $0)) }) }
                    continue
                }
                let url = WebEndpoints.url(
                    archive, "/v1/archive",
                    location + [
                        ("start_date", day.iso8601), ("end_date", day.iso8601), ("daily", "temperature_2m_max"),
                        ("timezone", "auto"),
                    ])
                group.addTask { [self] in
                    do throws(WebError) {
                        let days = try Self.days(from: try OpenMeteoResponse.body(of: try await http.get(url)))
                        let maximum = days.first { $0.date == day }?.maximum
                        remembered.withLock { memo in
                            if memo.count > 4_096 { memo.removeAll() }
                            memo[key] = .some(maximum)
                        }
                        return .success(maximum.map { .init(year: year, maximum: Temperature(celsius: $0)) })
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var found: [ClimateReport.Point] = []
            var failure: WebError?
            for await outcome in group {
                switch outcome {
                case .success(let point): if let point { found.append(point) }
                case .failure(let error): failure = failure ?? error
                }
            }
            return failure.map { .failure($0) } ?? .success(found)
        }
        points += try result.get()
        return try PayloadLimits.checked(
            ClimateReport(month: date.month, day: date.day, points: points), under: "daily.")
    }

    /// 29 February in a year without one is read as the 28th.
    static func day(_ date: CivilDate, in year: Int) -> Int {
        guard date.month == 2, date.day == 29 else { return date.day }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return leap ? 29 : 28
    }

    /// One day of a daily answer: its date and maximum temperature (°C), nil where the answer has none.
    public struct Day: Hashable, Sendable {
        public var date: CivilDate
        public var maximum: Double?
    }

    /// The days an answer's body holds, every maximum checked (`PlausibleRange.celsius`); a pure function, for
    /// fuzzing. `null` is a day without a value, as Open-Meteo documents it.
    public static func days(from body: Data) throws(WebError) -> [Day] {
        let payload = try OpenMeteoResponse.decode(Payload.self, from: body)
        guard payload.daily.time.count == payload.daily.maximum.count else {
            throw WebError(
                .badPayload, "daily: \(payload.daily.time.count) days but \(payload.daily.maximum.count) values")
        }
        guard payload.daily.time.count <= PayloadLimits.days else {
            throw WebError(.badPayload, "daily: \(payload.daily.time.count) days, more than \(PayloadLimits.days)")
        }
        var days: [Day] = []
        for (index, (text, maximum)) in zip(payload.daily.time, payload.daily.maximum).enumerated() {
            guard let date = CivilDate(iso8601: Substring(text)) else {
                throw WebError(.badPayload, "daily.time: \"\(text)\" is not YYYY-MM-DD")
            }
            if let maximum, !PlausibleRange.celsius.contains(maximum) {
                throw WebError(.badPayload, "daily.temperature_2m_max[\(index)]: \(maximum) °C is outside -100...100")
            }
            days.append(Day(date: date, maximum: maximum))
        }
        return days
    }

    /// Today at the place, from a forecast answer's body: its first day, in a year near enough to ask the archive
    /// about (`PayloadLimits.forecastYear`); a pure function, for fuzzing.
    public static func today(from body: Data) throws(WebError) -> Day {
        guard let first = try days(from: body).first else { throw WebError(.badPayload, "daily: no days") }
        guard PayloadLimits.forecastYear.contains(first.date.year) else {
            throw WebError(.badPayload, "daily.time: \(first.date.iso8601) is not near today")
        }
        return first
    }

    private struct Payload: Decodable {
        var daily: Daily

        struct Daily: Decodable {
            var time: [String]
            var maximum: [Double?]

            enum CodingKeys: String, CodingKey {
                case time
                case maximum = "temperature_2m_max"
            }
        }
    }
}

extension ClimateClient: DatasetClient {
    public static func make(http: HTTPClient, endpoints: WebEndpoints, googlePollenKey: String?) -> ClimateClient {
        ClimateClient(http: http, archive: endpoints.archive, forecast: endpoints.forecast)
    }
}
