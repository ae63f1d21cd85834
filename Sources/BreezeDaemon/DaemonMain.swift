public import BreezeCore
public import BreezeSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `breezed`'s entry: parse flags, load the configuration, run the daemon. Exit status 0 on a clean stop,
/// 64 for a bad command line, 78 for a bad configuration, 1 when it cannot start.
public enum DaemonMain {
    /// `threadLoan` lends gpsd's reader thread to the executor the daemon's tasks run on (`ThreadLoan`); every timer
    /// waits on `clock`.
    public static func run(
        _ arguments: [String], threadLoan: ThreadLoan = .none, clock: any ServiceClock = .system
    ) async -> Int32 {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(Array(arguments.dropFirst()))
        } catch {
            StandardStream.error("breezed: \(error.message)\nRun 'breezed --help' for the options.\n")
            return 64
        }
        switch options.action {
        case .help:
            StandardStream.output(DaemonOptions.usage)
            return 0
        case .version:
            StandardStream.output("breezed \(Release.version)\n")
            return 0
        case .checkConfig:
            let check = ConfigurationCheck(options)
            if check.problems.isEmpty {
                StandardStream.output(check.report)
                return 0
            }
            StandardStream.error(check.report)
            return 78
        case .run:
            break
        }
        // The start refuses what `--check-config` would, and says every problem, not the first.
        let check = ConfigurationCheck(options)
        for problem in check.problems { Logger().error("config.invalid", ["error": problem.description]) }
        guard let configuration = check.configuration else { return 78 }
        let logger = Logger(level: configuration.logLevel)
        // Process-wide, so set here once: a write to a peer that has gone is an error to handle (EPIPE), never a
        // signal that ends the daemon. Sockets are written with MSG_NOSIGNAL too; this covers every other write.
        signal(SIGPIPE, SIG_IGN)
        let daemon: Daemon
        do {
            daemon = try Daemon(configuration: configuration, logger: logger, threadLoan: threadLoan, clock: clock)
        } catch {
            logger.error("daemon.cannot_start", ["error": error.description])
            return 1
        }
        return await daemon.run {
            do throws(ConfigurationError) {
                return .success(try options.configuration())
            } catch {
                return .failure(error)
            }
        }
    }
}
