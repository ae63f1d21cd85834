import BreezeCore
import Testing

/// A dataset's registration: its class name, report type, freshness and configuration key, each in one place.
@Suite struct DatasetTests {
    @Test func eachDatasetHasItsProtocolClass() {
        #expect(Dataset.allCases.map(\.className) == ["AIR", "POLLEN", "CLIMATE", "WEATHER"])
        for dataset in Dataset.allCases {
            #expect(Dataset(className: dataset.className) == dataset)
        }
        #expect(Dataset(className: "air") == nil)
        #expect(Dataset(className: "LOCATION") == nil)
    }

    @Test func eachDatasetsReportTypeNamesItsDataset() {
        for dataset in Dataset.allCases {
            #expect(dataset.reportType.dataset == dataset, "\(dataset)")
        }
    }

    @Test func freshnessAndItsConfigurationKey() {
        #expect(Dataset.allCases.map(\.defaultFreshness) == [3_600, 86_400, 86_400, 3_600])
        #expect(Dataset.allCases.map(\.refreshKey) == ["air_refresh", "pollen_refresh", "climate_refresh", "weather_refresh"])
    }

    @Test func aReportSaysWhenItHasNothingForThePlace() {
        #expect(AirQualityReport(time: 0, usAQI: nil, readings: []).unavailableReason == nil)
        let noPollen = PollenReport(provider: .openMeteo, time: 0, entries: [])
        #expect(noPollen.unavailableReason?.contains("Open-Meteo covers Europe") == true)
        let noPollenFromGoogle = PollenReport(provider: .google, time: 0, entries: [])
        #expect(noPollenFromGoogle.unavailableReason == "no pollen data for this place today")
        let birch = PollenReport.Entry(code: "BIRCH", name: "Birch", kind: .plant, level: .low)
        #expect(PollenReport(provider: .openMeteo, time: 0, entries: [birch]).unavailableReason == nil)
        #expect(ClimateReport(month: 6, day: 1, points: []).unavailableReason == "no temperature record for this place")
        let point = ClimateReport.Point(year: 1990, maximum: Temperature(celsius: 21))
        #expect(ClimateReport(month: 6, day: 1, points: [point]).unavailableReason == nil)
    }

    @Test func aDatasetIsFoundByItsNameOrClassOnlyWhenRegistered() {
        #expect(Dataset.allCases.map(\.rawValue) == ["air", "pollen", "climate", "weather"])
        for dataset in Dataset.allCases {
            #expect(Dataset(rawValue: dataset.rawValue) == dataset)
        }
        #expect(Dataset(rawValue: "AIR") == nil)
        let declaredOnly = Dataset(name: "uv", className: "UV", defaultFreshness: 3_600)
        #expect(!Dataset.allCases.contains(declaredOnly))
        #expect(Dataset(rawValue: "uv") == nil)
        #expect(Dataset(className: "UV") == nil)
    }

    @Test func namesAndClassNamesAreEachRegisteredOnce() {
        #expect(Set(Dataset.allCases.map(\.rawValue)).count == Dataset.allCases.count)
        #expect(Set(Dataset.allCases.map(\.className)).count == Dataset.allCases.count)
        #expect(Set(Dataset.registeredReports.map { ObjectIdentifier($0) }).count == Dataset.registeredReports.count)
    }
}
