import BreezeCore
import BreezeProtocol

/// `breezectl refresh`: every dataset fetched now, waiting (at most `--timeout`) for each one's answer.
struct RefreshCommand: BreezectlCommand {
    static let help = CommandHelp(
        abstract: "Fetch the data for the current place now and wait for every answer.",
        usage: "refresh",
        discussion: "Exits 0 when no dataset failed, 75 naming those that did, 69 when not every dataset answered "
            + "within --timeout.",
        examples: [
            ("breezectl refresh", "fetch now and print each dataset's answer"),
            ("breezectl --timeout 60 refresh", "wait up to a minute"),
        ])

    init(_ context: CommandContext) throws(CLIError) {}

    /// A dataset that failed exits 75 naming it; the time passing first exits 69, as any wait for breezed does.
    func run(_ context: CommandContext) throws(CLIError) {
        let connection = try context.connect()
        let output = context.output
        let seconds = printfFormat("%g", ControlConnection.bounded(context.timeout))
        let id = try connection.send("refresh", [("wait", .bool(true))])
        let progress = context.isTerminal && !context.json
        if progress { output.write("Refreshing the data (waiting up to \(seconds) s)…") }
        let reply: JSONValue
        do throws(CLIError) {
            reply = try connection.reply(to: id)
            if progress { output.write("\r\u{1B}[K") }
        } catch {
            if progress { output.write("\r\u{1B}[K") }
            guard error.timedOut else { throw error }
            throw CLIError(.unreachable, "the refresh did not finish within \(seconds) s", timedOut: true)
        }
        output.write(context.renderer.reply(reply))
        // A daemon that does not wait answers at once, with no datasets.
        guard case .array(let datasets)? = reply["datasets"] else { return }
        /// "AIR, POLLEN (transport: …), CLIMATE": each reason once, after the datasets that share it.
        func names(where include: (JSONValue) -> Bool) -> [String] {
            ReplyRenderer.grouped(datasets.filter(include)) { [$0["reason"]] }.map { names, dataset in
                let list = names.joined(separator: ", ")
                return dataset["reason"]?.displayText.map { "\(list) (\($0))" } ?? list
            }
        }
        // Stale or fresh with a reason: kept through a failure of this refresh.
        let failed = names { dataset in
            dataset["state"] == .string("failed")
                || (dataset["state"] == .string("stale") || dataset["state"] == .string("fresh"))
                    && dataset["reason"] != nil
        }
        if !failed.isEmpty {
            throw CLIError(.temporaryFailure, "the refresh failed for \(failed.joined(separator: ", "))")
        }
        let waiting = names { $0["state"] == .string("loading") }
        if !waiting.isEmpty {
            throw CLIError(
                .unreachable, "no answer for \(waiting.joined(separator: ", ")) within breezed's limit", timedOut: true)
        }
    }
}
