import BreezeCore
import BreezeProtocol

/// How breezectl shows one dataset: its subcommand's help, its section of the dashboard (for `status` and for the
/// subcommand named after the dataset) and its `watch` line. One file a dataset in this folder, each listed once
/// in `DatasetViews.all`.
protocol DatasetView {
    /// The dataset shown: its name is the subcommand, its class the object read.
    static var dataset: Dataset { get }
    /// The dataset in breezectl's messages ("no pollen data yet"): its name unless the view says otherwise.
    static var noun: String { get }
    /// The subcommand's help.
    static var help: CommandHelp { get }
    /// The lines that show the dataset's newest object, or that there is none yet.
    static func section(_ message: JSONValue?, _ dashboard: Dashboard) -> [String]
    /// The `watch` line for an object, after its time; nil for the class and the state alone.
    static func watchText(_ message: JSONValue, _ dashboard: Dashboard) -> String?
    /// The `watch --format` tokens it gives, in the order the help lists them.
    static var formatTokens: [String] { get }
    /// The values of those tokens for its newest object (`WatchLine.fields`).
    static func formatFields(_ message: JSONValue, unit: TemperatureUnit) -> [String: String]
    /// Its line in a status bar's tooltip (`StatusBar.tooltip`): the noun and the state unless the view says
    /// otherwise.
    static func tooltipLine(_ message: JSONValue, _ dashboard: Dashboard) -> String
}

extension DatasetView {
    static var noun: String { dataset.rawValue }

    static func watchText(_ message: JSONValue, _ dashboard: Dashboard) -> String? { nil }

    static var formatTokens: [String] { [] }

    static func formatFields(_ message: JSONValue, unit: TemperatureUnit) -> [String: String] { [:] }

    static func tooltipLine(_ message: JSONValue, _ dashboard: Dashboard) -> String {
        noun.prefix(1).uppercased() + noun.dropFirst() + " " + dashboard.stateText(message)
    }
}

/// Every dataset's view: the one list a new dataset's view is added to. Subcommands and `status` follow the
/// order of `Dataset.allCases`.
enum DatasetViews {
    static var all: [any DatasetView.Type] { [AirView.self, PollenView.self, ClimateView.self, WeatherView.self] }

    /// The view of `dataset`, if it has one.
    static func view(_ dataset: Dataset) -> (any DatasetView.Type)? {
        all.first { $0.dataset == dataset }
    }

    /// The subcommand type that shows `view`'s dataset.
    static func command(_ view: any DatasetView.Type) -> any BreezectlCommand.Type {
        command(of: view)
    }

    private static func command<View: DatasetView>(of view: View.Type) -> any BreezectlCommand.Type {
        DatasetCommand<View>.self
    }
}

/// `breezectl air`, `pollen`, `climate`, `weather`: a dataset's part of breezed's state, with its view's help.
struct DatasetCommand<View: DatasetView>: SnapshotCommand {
    static var help: CommandHelp { View.help }
}
