import BreezeCLI
import BreezeCore
import BreezeProtocol
import Testing

/// Every registered dataset has its view in breezectl: the subcommand named after it shows its own section (a
/// dataset without a view has no subcommand, and its name would fall back to the whole `status`).
@Suite struct DatasetViewTests {
    @Test(arguments: Dataset.allCases)
    func eachDatasetsSubcommandShowsItsOwnSection(_ dataset: Dataset) {
        let line = DatasetMessage.empty(dataset, status: .loading).encoded()
        let text = ReplyText.render(Array(line.utf8), command: dataset.rawValue)
        #expect(text.hasSuffix(" (loading)\n"), "\(text)")
        #expect(text.split(separator: "\n").count == 1, "\(text)")
        #expect(!text.contains("No place yet"), "\(text)")
        #expect(!text.hasPrefix(dataset.className + ":"), "\(dataset) is shown without its view: \(text)")
        #expect(ReplyText.render(Array(line.utf8), command: dataset.rawValue, json: true) == line + "\n")
    }

    @Test(arguments: Dataset.allCases)
    func statusShowsEachDatasetsSectionInItsPlace(_ dataset: Dataset) {
        let line = DatasetMessage.empty(dataset, status: .offline, reason: "web requests are off").encoded()
        let own = ReplyText.render(Array(line.utf8), command: dataset.rawValue)
        let status = ReplyText.render(Array(line.utf8), command: "status")
        #expect(status.contains("\n\n" + own), "\(status)")
    }
}
