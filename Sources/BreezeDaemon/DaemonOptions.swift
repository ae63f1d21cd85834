import BreezeCore
import BreezeGPSD
import BreezeMQTT
import BreezeSystem
import BreezeWeb
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `breezed`'s command line: which configuration file, and the flags that override it.
public struct DaemonOptions: Sendable {
    public enum Action: Sendable, Equatable {
        case run
        case help
        case version
        /// `--check-config [FILE]`: read the configuration, say what is wrong with it, and exit.
        case checkConfig
    }

    public var action = Action.run
    /// nil: the default path, which may be absent.
    public var configPath: String?
    var overrides: [@Sendable (inout DaemonConfiguration) -> Void] = []
    /// The inherited, unchanged command line, for messages.
    public var arguments: [String] = []

    public static let usage = """
        USAGE: breezed [options]

        Knows where this machine is, names the place, and keeps its air quality, pollen, climate and weather data,
        publishing every change on a Unix-domain socket (see breezectl(1)).

        OPTIONS:
          --config PATH        configuration file (default: /etc/breezed/breezed.conf, if present)
          --socket PATH        socket path (default: /run/breezed/breezed.sock)
          --state-dir DIR      saved cities, selection, the location switch (default: /var/lib/breezed)
          --cache-dir DIR      the last data per place (default: /var/cache/breezed)
          --gpsd HOST:PORT     gpsd to read fixes from (default: 127.0.0.1:2947)
          --no-gpsd            do not use gpsd
          --no-geoclue         do not use GeoClue
          --offline            no web requests at all: location and place names only
          --api-base URL       every web API at this base URL, paths unchanged
          --fallback-city CITY the city to use while no source gives positions
          --log-level LEVEL    error, warning, notice, info or debug (default: info)
          --mqtt URL           publish to this MQTT broker: mqtt[s]://[user[:password]@]host[:port]
          --mqtt-node NAME     this machine's name in MQTT topics (default: the host name)
          --check-config [FILE] check the configuration (FILE, else --config's, else the default) and exit:
                               0 when it can be used, 78 with its problems
          --version            print the version and exit
          -h, --help           print this help and exit

        """

    public init() {}

    /// Parses the arguments after the program name. Throws a usage error naming the bad argument.
    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        options.arguments = arguments
        var scanner = CommandLineScanner(arguments)
        func value(_ flag: String) throws(UsageError) -> String {
            guard let value = scanner.value(), !value.hasPrefix("--"), !value.isEmpty else {
                throw UsageError("\(flag) needs a value")
            }
            guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw UsageError("\(flag) has a control character in its value")
            }
            return value
        }
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        }
        while let token = scanner.next() {
            // Every argument is an option: breezed takes no others.
            let (flag, argument) =
                switch token {
                case .option(let flag, let argument): (flag, argument)
                case .plain(let argument): (argument, argument)
                }
            switch flag {
            case "-h", "--help": options.action = .help
            case "--version": options.action = .version
            case "--check-config":
                options.action = .checkConfig
                // An optional FILE: the next argument, unless it is another option.
                if let next = scanner.upcoming, !next.hasPrefix("-") {
                    scanner.skip()
                    options.configPath = absolute(next)
                }
            case "--config": options.configPath = absolute(try value(flag))
            case "--socket":
                let path = absolute(try value(flag))
                options.overrides.append { $0.socketPath = path }
            case "--state-dir":
                let path = absolute(try value(flag))
                options.overrides.append { $0.stateDirectory = path }
            case "--cache-dir":
                let path = absolute(try value(flag))
                options.overrides.append { $0.cacheDirectory = path }
            case "--gpsd":
                let text = try value(flag)
                guard let address = GPSDAddress(text) else {
                    throw UsageError("--gpsd expects HOST:PORT, not \"\(text)\"")
                }
                options.overrides.append { $0.gpsd = address }
            case "--no-gpsd": options.overrides.append { $0.gpsd = nil }
            case "--no-geoclue": options.overrides.append { $0.geoclue = false }
            case "--offline": options.overrides.append { $0.offline = true }
            case "--api-base":
                let text = try value(flag)
                guard let url = try? DaemonConfiguration.url(text) else {
                    throw UsageError("--api-base expects an http:// or https:// URL, not \"\(text)\"")
                }
                options.overrides.append { $0.endpoints = WebEndpoints(base: url) }
            case "--fallback-city":
                let city = try value(flag)
                options.overrides.append { $0.fallbackCity = city }
            case "--log-level":
                let text = try value(flag)
                guard let level = Logger.Level(name: text) else {
                    throw UsageError("--log-level expects error, warning, notice, info or debug, not \"\(text)\"")
                }
                options.overrides.append { $0.logLevel = level }
            case "--mqtt":
                let text = try value(flag)
                let broker: MQTTBroker
                do throws(MQTTError) {
                    broker = try MQTTBroker(url: text)
                } catch {
                    throw UsageError("--mqtt: \(error.message)")
                }
                options.overrides.append { $0.mqtt.broker = broker }
            case "--mqtt-node":
                let text = try value(flag)
                guard let node = try? MQTTSettings.name(text, what: "node name") else {
                    throw UsageError("--mqtt-node expects 1 to 64 letters, digits, '-', '_' or '.', not \"\(text)\"")
                }
                options.overrides.append { $0.mqtt.node = node }
            default:
                throw UsageError("unknown option \"\(argument)\"")
            }
        }
        return options
    }

    /// Defaults, then the configuration file, then the flags.
    public func configuration() throws(ConfigurationError) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        let path = configPath ?? DaemonConfiguration.defaultPath
        let bytes: [UInt8]?
        do throws(SystemCallError) {
            bytes = try AtomicFile.read(path, limit: ConfigurationFile.maximumSize)
        } catch  where error.errno == EFBIG {
            throw ConfigurationError(file: path, line: nil, "larger than \(ConfigurationFile.maximumSize) bytes")
        } catch {
            throw ConfigurationError(file: path, line: nil, "cannot read the file: \(error)")
        }
        if let bytes {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw ConfigurationError(file: path, line: nil, "not UTF-8 text")
            }
            try configuration.apply(try ConfigurationFile(text: text, name: path))
        } else if configPath != nil {
            throw ConfigurationError(file: path, line: nil, "cannot read the file: it does not exist")
        }
        for override in overrides { override(&configuration) }
        return configuration
    }
}

/// A command line that cannot be used.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
