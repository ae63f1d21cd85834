import BreezeCore
import BreezeMQTT
import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The broker `fleet` reads and how to trust it: from `--mqtt` and `--ca-file`, or, when `--mqtt` is not given,
/// from `[mqtt]` in breezed's configuration (`url`, `password_file`, `ca_file`), so a machine that publishes lists
/// its fleet with no flags.
struct FleetBroker {
    var broker: MQTTBroker
    var caFile: String?

    init(_ arguments: CommandLineArguments) throws(CLIError) {
        if let url = arguments.mqtt {
            do throws(MQTTError) {
                broker = try MQTTBroker(url: url)
            } catch {
                throw CLIError(.usage, "--mqtt: \(error.message)")
            }
            caFile = arguments.caFile
            return
        }
        let path = arguments.config ?? ConfigurationFile.breezedDefaultPath
        let settings = try Self.mqttSection(of: path, named: arguments.config != nil)
        guard let url = settings["url"], !url.value.isEmpty else {
            throw CLIError(
                .usage, "fleet needs the broker: breezectl fleet --mqtt mqtt://host[:port], or [mqtt] url in \(path)")
        }
        do throws(MQTTError) {
            broker = try MQTTBroker(url: url.value)
        } catch {
            throw CLIError(.usage, "\(path):\(url.line): [mqtt] url: \(error.message)")
        }
        if let passwordFile = settings["password_file"], !passwordFile.value.isEmpty {
            do throws(MQTTError) {
                broker = try broker.withPassword(fromFile: passwordFile.value)
            } catch {
                let notPermitted = (error.cause as? SystemCallError)?.errno == EACCES
                throw CLIError(
                    notPermitted ? .notPermitted : .usage,
                    "\(path):\(passwordFile.line): [mqtt] password_file: \(error.message); "
                        + "or give the broker with --mqtt")
            }
        }
        caFile = arguments.caFile ?? settings["ca_file"].flatMap { $0.value.isEmpty ? nil : $0.value }
    }

    /// The `[mqtt]` entries of the configuration at `path`. A missing default file is the usual "no broker"; one
    /// named with `--config` must exist.
    private static func mqttSection(
        of path: String, named: Bool
    ) throws(CLIError) -> [String: ConfigurationFile.Entry] {
        let bytes: [UInt8]?
        do throws(SystemCallError) {
            bytes = try AtomicFile.read(path, limit: ConfigurationFile.maximumSize)
        } catch  where error.errno == EACCES {
            throw CLIError(.notPermitted, "cannot read \(path): \(error.reason); give the broker with --mqtt")
        } catch {
            throw CLIError(.usage, "cannot read \(path): \(error.reason); give the broker with --mqtt")
        }
        guard let bytes else {
            if named { throw CLIError(.usage, "cannot read \(path): it does not exist") }
            return [:]
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError(.usage, "cannot read \(path): not UTF-8 text")
        }
        do throws(ConfigurationError) {
            return try ConfigurationFile(text: text, name: path).sections["mqtt"] ?? [:]
        } catch {
            throw CLIError(.usage, error.description)
        }
    }
}
