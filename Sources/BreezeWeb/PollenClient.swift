public import BreezeCore
import Foundation

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
            let url = WebEndpoints.url(google, "/v1/forecast:lookup", [
                ("key", googleKey), ("location.latitude", WebEndpoints.degrees(coordinate.latitude)),
                ("location.longitude", WebEndpoints.degrees(coordinate.longitude)), ("days", "1"),
            ])
            let body = try OpenMeteoResponse.body(of: try await http.get(url))
            return try Self.googleReport(from: body)
        }
        let url = WebEndpoints.url(openMeteo, "/v1/air-quality", [
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

    static func openMeteoReport(from body: Data) throws(WebError) -> PollenReport {
        let payload = try OpenMeteoResponse.decode(OpenMeteoCurrentPayload.self, from: body)
        let time = try OpenMeteoResponse.time(payload.current.time, utcOffset: payload.utcOffset ?? 0)
        let entries = OpenMeteoTaxon.allCases.map { taxon -> PollenReport.Entry in
            let grains = payload.current.value(taxon.rawValue)
            return PollenReport.Entry(
                code: taxon.name.uppercased(), name: taxon.name, kind: .plant,
                level: grains.flatMap { $0.isFinite && $0 >= 0 ? taxon.level(grains: $0) : nil }, grains: grains)
        }
        return PollenReport(provider: .openMeteo, time: time, entries: entries)
    }

    // MARK: Google

    static func googleReport(from body: Data) throws(WebError) -> PollenReport {
        let payload = try OpenMeteoResponse.decode(GooglePayload.self, from: body)
        guard let day = payload.dailyInfo?.first else {
            return PollenReport(provider: .google, time: 0, entries: [])
        }
        let time = day.date.flatMap { date -> Double? in
            guard let year = date.year, let month = date.month, let dayOfMonth = date.day else { return nil }
            return Double(CivilDate(year: year, month: month, day: dayOfMonth).daysSince1970) * 86_400
        } ?? 0
        func entry(_ info: GooglePayload.Info, _ kind: PollenReport.Entry.Kind) -> PollenReport.Entry {
            PollenReport.Entry(
                code: info.code, name: info.displayName ?? info.code.capitalized, kind: kind,
                level: info.indexInfo?.value.flatMap { PollenLevel(index: $0) })
        }
        let entries = (day.pollenTypeInfo ?? []).map { entry($0, .type) } + (day.plantInfo ?? []).map { entry($0, .plant) }
        return PollenReport(provider: .google, time: time, entries: entries)
    }

    private struct GooglePayload: Decodable {
        var dailyInfo: [Day]?

        struct Day: Decodable {
            var date: DateParts?
            var pollenTypeInfo: [Info]?
            var plantInfo: [Info]?
        }

        struct DateParts: Decodable {
            var year: Int?
            var month: Int?
            var day: Int?
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
