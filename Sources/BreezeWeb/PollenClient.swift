public import BreezeCore
import FoundationEssentials

/// Pollen for a place: Google's Pollen API when a key is configured (worldwide), else Open-Meteo's air-quality
/// API (six European taxa; elsewhere every value is null, which means "not available here").
public struct PollenClient: Sendable {
    private let http: HTTPClient
    private let openMeteo: URL
    private let google: URL
    private let googleKey: String?

    public init(http: HTTPClient, openMeteo: URL, google: URL, googleKey: String?) {
        self.http = http
        self.openMeteo = openMeteo
        self.google = google
        self.googleKey = googleKey.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func fetch(_ coordinate: Coordinate) async throws(WebError) -> PollenReport {
        if let googleKey {
            let url = WebEndpoints.url(
                google, "/v1/forecast:lookup",
                [
                    ("key", googleKey), ("location.latitude", WebEndpoints.degrees(coordinate.latitude)),
                    ("location.longitude", WebEndpoints.degrees(coordinate.longitude)), ("days", "1"),
                ])
            let body = try OpenMeteoResponse.body(of: try await http.get(url))
            return try Self.googleReport(from: body)
        }
        let url = WebEndpoints.url(
            openMeteo, "/v1/air-quality",
            [
                ("latitude", WebEndpoints.degrees(coordinate.latitude)),
                ("longitude", WebEndpoints.degrees(coordinate.longitude)),
                ("current", OpenMeteoTaxon.allCases.map(\.rawValue).joined(separator: ",")), ("timezone", "auto"),
            ])
        let body = try OpenMeteoResponse.body(of: try await http.get(url))
        return try Self.openMeteoReport(from: body)
    }

    // MARK: Open-Meteo

    /// Open-Meteo's taxa, with the concentrations (grains/m³) at which each level of the 0–5 scale begins.
    ///
    /// Tree pollen is counted high at higher concentrations than grass and weed pollen, to which people react at
    /// lower counts; the steps follow the bands commonly used by European pollen services.
    enum OpenMeteoTaxon: String, CaseIterable {
        case alder = "alder_pollen"
        case birch = "birch_pollen"
        case grass = "grass_pollen"
        case mugwort = "mugwort_pollen"
        case olive = "olive_pollen"
        case ragweed = "ragweed_pollen"

        var name: String {
            switch self {
            case .alder: "Alder"
            case .birch: "Birch"
            case .grass: "Grass"
            case .mugwort: "Mugwort"
            case .olive: "Olive"
            case .ragweed: "Ragweed"
            }
        }

        /// Lower bounds of Very Low … Very High.
        var steps: [Double] {
            switch self {
            case .alder, .birch, .olive: [1, 11, 51, 101, 1_001]
            case .grass: [1, 5, 21, 51, 201]
            case .mugwort, .ragweed: [1, 3, 11, 51, 101]
            }
        }

        func level(grains: Double) -> PollenLevel {
            PollenLevel(rawValue: steps.filter { grains >= $0 }.count) ?? .none
        }
    }

    /// The report an Open-Meteo answer's body holds, every count checked; a pure function, for fuzzing.
    public static func openMeteoReport(from body: Data) throws(WebError) -> PollenReport {
        let payload = try OpenMeteoResponse.decode(OpenMeteoCurrentPayload.self, from: body)
        let time = try OpenMeteoResponse.time(payload.current.time, utcOffset: try payload.checkedUTCOffset())
        let entries = OpenMeteoTaxon.allCases.map { taxon -> PollenReport.Entry in
            let grains = payload.current.value(taxon.rawValue)
            return PollenReport.Entry(
                code: taxon.name.uppercased(), name: taxon.name, kind: .plant,
                level: grains.flatMap { $0.isFinite && $0 >= 0 ? taxon.level(grains: $0) : nil }, grains: grains)
        }
        return try PayloadLimits.checked(
            PollenReport(provider: .openMeteo, time: time, entries: entries), under: "current.")
    }

    // MARK: Google

    /// The report a Google Pollen answer's body holds, every number checked; a pure function, for fuzzing.
    public static func googleReport(from body: Data) throws(WebError) -> PollenReport {
        let payload = try OpenMeteoResponse.decode(GooglePayload.self, from: body)
        guard let day = payload.dailyInfo?.first else {
            return PollenReport(provider: .google, time: 0, entries: [])
        }
        var time = 0.0
        if let date = day.date, let year = date.year, let month = date.month, let dayOfMonth = date.day {
            // Checked before any calendar arithmetic: a year near Int.max overflows it.
            let field = "dailyInfo[0].date"
            let civil = CivilDate(
                year: try PayloadLimits.integer(year, in: PayloadLimits.dateYear, field: field + ".year"),
                month: try PayloadLimits.integer(month, in: 1...12, field: field + ".month"),
                day: try PayloadLimits.integer(dayOfMonth, in: 1...31, field: field + ".day"))
            guard CivilDate(daysSince1970: civil.daysSince1970) == civil else {
                throw WebError(.badPayload, "\(field): \(civil.iso8601) is not a day")
            }
            time = Double(civil.daysSince1970) * 86_400
        }
        let types = day.pollenTypeInfo ?? []
        let plants = day.plantInfo ?? []
        guard types.count + plants.count <= PlausibleRange.pollenEntries else {
            throw WebError(.badPayload, "dailyInfo[0]: \(types.count + plants.count) pollen types and plants")
        }
        func entry(_ info: GooglePayload.Info, _ kind: PollenReport.Entry.Kind, _ path: String) throws(WebError)
            -> PollenReport.Entry
        {
            var level: PollenLevel?
            if let value = info.indexInfo?.value {
                guard PlausibleRange.pollenIndex.contains(value) else {
                    throw WebError(.badPayload, "\(path).indexInfo.value: \(value) is outside 0...5")
                }
                level = PollenLevel(index: value)
            }
            let code = PayloadLimits.capped(info.code)
            return PollenReport.Entry(
                code: code, name: info.displayName.map(PayloadLimits.capped) ?? code.capitalized, kind: kind,
                level: level)
        }
        var entries: [PollenReport.Entry] = []
        for (index, info) in types.enumerated() {
            entries.append(try entry(info, .type, "dailyInfo[0].pollenTypeInfo[\(index)]"))
        }
        for (index, info) in plants.enumerated() {
            entries.append(try entry(info, .plant, "dailyInfo[0].plantInfo[\(index)]"))
        }
        return try PayloadLimits.checked(PollenReport(provider: .google, time: time, entries: entries), under: "")
    }

    private struct GooglePayload: Decodable {
        var dailyInfo: [Day]?

        struct Day: Decodable {
            var date: DateParts?
            var pollenTypeInfo: [Info]?
            var plantInfo: [Info]?
        }

        struct DateParts: Decodable {
            var year: Double?
            var month: Double?
            var day: Double?
        }

        struct Info: Decodable {
            var code: String
            var displayName: String?
            var indexInfo: IndexInfo?
        }

        struct IndexInfo: Decodable {
            var value: Double?
            var category: String?
        }
    }
}

extension PollenClient: DatasetClient {
    public static func make(http: HTTPClient, endpoints: WebEndpoints, googlePollenKey: String?) -> PollenClient {
        PollenClient(
            http: http, openMeteo: endpoints.airQuality, google: endpoints.googlePollen, googleKey: googlePollenKey)
    }
}
