import BreezeCore

/// breezectl's subcommands by name; each one's help, parsing and run are in its type (`command`).
enum Subcommand: Hashable {
    case status, `where`, watch, search, lookup, select, here, saved, popular, location, refresh
    case fleet
    /// A dataset's part of the state: `air`, `pollen`, `climate`, `weather` (`DatasetViews`).
    case dataset(Dataset)

    /// Every subcommand, in the order `--help` lists them: the datasets after `where`, in `Dataset.allCases` order.
    static var allCases: [Subcommand] {
        [.status, .where] + Dataset.allCases.filter { DatasetViews.view($0) != nil }.map(Subcommand.dataset)
            + [.watch, .search, .lookup, .select, .here, .saved, .popular, .location, .refresh, .fleet]
    }

    /// The subcommand named `rawValue`, if any.
    init?(rawValue: String) {
        guard let subcommand = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = subcommand
    }

    /// Its name on the command line.
    var rawValue: String {
        switch self {
        case .status: "status"
        case .where: "where"
        case .watch: "watch"
        case .search: "search"
        case .lookup: "lookup"
        case .select: "select"
        case .here: "here"
        case .saved: "saved"
        case .popular: "popular"
        case .location: "location"
        case .refresh: "refresh"
        case .fleet: "fleet"
        case .dataset(let dataset): dataset.rawValue
        }
    }

    /// The type that parses and runs it.
    var command: any BreezectlCommand.Type {
        switch self {
        case .status: StatusCommand.self
        case .where: WhereCommand.self
        case .watch: WatchCommand.self
        case .search: SearchCommand.self
        case .lookup: LookupCommand.self
        case .select: SelectCommand.self
        case .here: HereCommand.self
        case .saved: SavedCommand.self
        case .popular: PopularCommand.self
        case .location: LocationCommand.self
        case .refresh: RefreshCommand.self
        case .fleet: FleetCommand.self
        case .dataset(let dataset):
            // Only a dataset with a view is a subcommand (`allCases`).
            DatasetViews.view(dataset).map(DatasetViews.command) ?? StatusCommand.self
        }
    }

    var help: CommandHelp { command.help }

    /// The dataset it shows, for `air`, `pollen`, `climate` and `weather`.
    var dataset: Dataset? {
        guard case .dataset(let dataset) = self else { return nil }
        return dataset
    }

    var usage: String { help.usage }

    var abstract: String { help.abstract }

    /// The positional arguments it takes.
    var arity: ClosedRange<Int> { help.arity }

    /// The subcommand a mistyped name was most likely meant to be: the closest name within one edit for names of up
    /// to four letters, two for longer ones (a swap of neighbours is one edit: `stauts` → `status`).
    static func suggestion(for typed: String) -> String? {
        let names = allCases.map(\.rawValue) + ["completion", "help"]
        let word = typed.lowercased()
        let limit = word.count <= 4 ? 1 : 2
        let scored = names.map { (name: $0, distance: editDistance(Array(word), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= limit else { return nil }
        return best.name
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        // Far longer than any subcommand: no suggestion, and no quadratic work on a long argument.
        guard a.count <= 64, b.count <= 64 else { return Int.max }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
