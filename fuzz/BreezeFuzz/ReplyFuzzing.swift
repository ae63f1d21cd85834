import BreezeCLI
import BreezeCore

/// One line from the daemon rendered by breezectl for each of its commands and output styles.
enum ReplyFuzzing {
    /// Every command whose reply breezectl renders: a dataset's is named after it.
    static let commands =
        ["status", "where"] + Dataset.allCases.map(\.rawValue) + ["search", "popular", "saved", "lookup", "watch"]

    static func feed(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let line = Array(bytes.dropFirst())
        let command = commands[Int(selector) % commands.count]
        _ = ReplyText.render(line, command: command)
        _ = ReplyText.render(line, command: command, json: true)
        if command == "watch" {
            _ = ReplyText.render(line, command: command, waybar: true)
            _ = ReplyText.render(line, command: command, format: "{emoji} {aqi} {city} {latitude}")
        }
    }
}
