import BreezeCore
import BreezeProtocol
import BreezeTestSupport
import Foundation
import Testing

/// Home Assistant renders each sensor's `value_template` with Jinja against the payload (`value_json`). While a
/// dataset is loading or has failed without data, every sensor must render to `None` (Home Assistant's "unknown"),
/// never fail on a missing key (a template warning, and the previous place's value left standing). Rendered here
/// by Jinja itself (python3-jinja2), with undefined keys made errors.
@Suite struct HomeAssistantTemplateTests {
    /// Debian's python3-jinja2 (scripts/bootstrap installs it).
    static let hasJinja = FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/jinja2")

    static let renderer = """
        import json, sys, jinja2
        env = jinja2.Environment(undefined=jinja2.StrictUndefined)
        cases = json.load(open(sys.argv[1]))
        out = []
        for case in cases:
            try:
                out.append(str(env.from_string(case["template"]).render(value_json=case["payload"])))
            except Exception as error:
                out.append("error: %s" % error)
        json.dump(out, open(sys.argv[2], "w"))
        """

    static let place = Place(
        id: 2661552, name: "Bern", admin1: "Bern", country: "Switzerland", countryCode: "CH", population: 121_631,
        coordinate: Coordinate(latitude: 46.948, longitude: 7.447))

    @Test(.enabled(if: hasJinja, "needs python3-jinja2"))
    func everySensorRendersUnknownWhileLoadingOrFailed() throws {
        var cases: [(String, String, JSONValue)] = []
        for dataset in Dataset.allCases {
            guard let body = dataset.reportType as? any DatasetMessageBody.Type else { continue }
            let payloads = [
                DatasetMessage.empty(dataset, status: .loading),
                DatasetMessage.empty(dataset, status: .failed(reason: "transport: no network")),
                DatasetMessage.message(
                    dataset, status: .failed(reason: "http: 500"), place: Self.place, report: nil, fetchedAt: nil,
                    now: 0),
            ]
            for sensor in body.sensors {
                guard let template = sensor.members.first(where: { $0.0 == "value_template" })?.1.stringValue else {
                    continue
                }
                for payload in payloads { cases.append((sensor.id, template, payload)) }
            }
        }
        #expect(cases.count >= 30, "every dataset's sensors: \(cases.count)")
        let folder = TemporaryPaths.make("templates")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let input = JSONValue.array(cases.map { .object([("template", .string($0.1)), ("payload", $0.2)]) })
        try input.encoded().write(toFile: folder + "/cases.json", atomically: true, encoding: .utf8)
        let process = try ChildProcess.spawn(
            "/usr/bin/python3", ["-c", Self.renderer, folder + "/cases.json", folder + "/out.json"])
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let rendered = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/out.json"))) as? [String])
        #expect(rendered.count == cases.count)
        for (index, text) in rendered.enumerated() {
            #expect(text == "None", "\(cases[index].0) with \(cases[index].2.encoded()): \(text)")
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
