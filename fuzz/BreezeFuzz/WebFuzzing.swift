import BreezeCore
import BreezeData
import BreezeWeb
import Foundation

/// A web answer's body through its decoder: it must become a report whose every number is plausible, or a
/// `WebError`, never a trap.
enum WebFuzzing {
    static let zurich = Place(
        id: 2_657_896, name: "Zürich", admin1: "Zurich", country: "Switzerland", countryCode: "CH",
        population: 341_730, coordinate: Coordinate(latitude: 47.36667, longitude: 8.55))

    static func air(_ bytes: [UInt8]) {
        guard let report = try? AirQualityClient.report(from: Data(bytes)) else { return }
        check(report)
    }

    static func openMeteoPollen(_ bytes: [UInt8]) {
        guard let report = try? PollenClient.openMeteoReport(from: Data(bytes)) else { return }
        check(report)
    }

    static func googlePollen(_ bytes: [UInt8]) {
        guard let report = try? PollenClient.googleReport(from: Data(bytes)) else { return }
        check(report)
    }

    /// The archive's answers (past days) and the forecast's (today) share a shape: both decoders run.
    static func climateDays(_ bytes: [UInt8]) {
        for day in (try? ClimateClient.days(from: Data(bytes))) ?? [] {
            guard day.maximum.map(PlausibleRange.celsius.contains) ?? true else { fatalError("implausible \(day)") }
        }
        if let today = try? ClimateClient.today(from: Data(bytes)) {
            guard today.maximum.map(PlausibleRange.celsius.contains) ?? true else { fatalError("implausible \(today)") }
        }
    }

    static func geocoding(_ bytes: [UInt8]) {
        for place in (try? GeocodingClient.places(from: Data(bytes))) ?? [] {
            guard Coordinate(validatingLatitude: place.coordinate.latitude, longitude: place.coordinate.longitude) != nil
            else { fatalError("a place off the Earth: \(place)") }
        }
    }

    static func nominatim(_ bytes: [UInt8]) {
        _ = try? NominatimClient.place(from: Data(bytes), at: zurich.coordinate)
    }

    /// A cache file, read as each dataset's entry for Zürich: served only when every number in it is plausible.
    static func weather(_ bytes: [UInt8]) {
        guard let report = try? WeatherClient.report(from: Data(bytes)) else { return }
        check(report)
    }

    /// Read as every dataset's entry.
    static func cache(_ bytes: [UInt8]) {
        for dataset in Dataset.allCases { decode(bytes, as: dataset.reportType) }
    }

    private static func decode<Report: DatasetReport>(_ bytes: [UInt8], as type: Report.Type) {
        if let entry = DataCache.decode(bytes, as: type, for: zurich) { check(entry.report) }
    }

    private static func check(_ report: some Plausible) {
        do throws(ImplausibleValue) {
            try report.checkPlausible()
        } catch {
            fatalError("a decoder let an implausible report through: \(error)")
        }
    }
}
