import BreezeSystem
import FoundationEssentials

/// `breezed --check-config`: every problem of a configuration file, found without starting the daemon.
public struct ConfigurationCheck: Sendable {
    /// The file checked.
    public var path: String
    /// Whether the file was there; a missing default file is no problem (the defaults apply).
    public var fileExists: Bool
    /// What is wrong, in the order of the file's lines; empty when the daemon would start with it.
    public var problems: [ConfigurationError]

    /// Checks the file `options` name (or the default one), with the flags applied over it as a start would.
    /// A line that cannot be parsed ends the check there; every bad value after a clean parse is listed.
    public init(_ options: DaemonOptions) {
        path = options.configPath ?? DaemonConfiguration.defaultPath
        fileExists = FileManager.default.fileExists(atPath: path)
        problems = []
        let first: ConfigurationError
        do throws(ConfigurationError) {
            _ = try options.configuration()
            return
        } catch {
            first = error
        }
        problems = [first]
        guard first.line != nil else { return }
        // The file parses line by line; check each setting on its own, so that one bad value hides no other.
        guard let bytes = try? AtomicFile.read(path, limit: ConfigurationFile.maximumSize),
            let text = String(validating: bytes, as: UTF8.self)
        else { return }
        let file: ConfigurationFile
        do throws(ConfigurationError) {
            file = try ConfigurationFile(text: text, name: path)
        } catch {
            return
        }
        var entries: [(section: String, key: String, entry: ConfigurationFile.Entry)] = []
        for (section, keys) in file.sections {
            for (key, entry) in keys { entries.append((section, key, entry)) }
        }
        problems = []
        for (section, key, entry) in entries.sorted(by: { $0.entry.line < $1.entry.line }) {
            var configuration = DaemonConfiguration()
            do throws(DaemonConfiguration.ValueError) {
                try configuration.set(section: section, key: key, entry.value)
            } catch {
                problems.append(
                    ConfigurationError(
                        file: path, line: entry.line,
                        "\(section.isEmpty ? "" : "[\(section)] ")\(key): \(error.message)"))
            }
        }
        if problems.isEmpty { problems = [first] }
    }

    /// The report: what was checked and every problem, one a line.
    public var report: String {
        if problems.isEmpty {
            return fileExists
                ? "\(path): the configuration can be used\n"
                : "\(path): no such file; the defaults apply\n"
        }
        return problems.map { "\($0.description)\n" }.joined()
    }
}
