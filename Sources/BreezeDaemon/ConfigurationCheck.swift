public import BreezeCore
public import BreezePlaces
import BreezeSystem
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// `breezed --check-config`, and the same check at start: every problem of a configuration file, found without
/// starting the daemon. Past the values themselves, it checks what they name: the files to read (a password, a key,
/// certificate authorities, the places index) and the fallback city, which must be named exactly.
public struct ConfigurationCheck: Sendable {
    /// The file checked.
    public var path: String
    /// Whether the file was there; a missing default file is no problem (the defaults apply).
    public var fileExists: Bool
    /// What is wrong, in the order of the file's lines; empty when the daemon would start with it.
    public var problems: [ConfigurationError]
    /// The place `fallback_city` names, when it names one.
    public var fallbackPlace: Place?
    /// The configuration checked, flags applied, when it has no problem: what a start runs with.
    public var configuration: DaemonConfiguration? { problems.isEmpty ? checked : nil }
    private var checked: DaemonConfiguration?

    /// Checks the file `options` name (or the default one), with the flags applied over it as a start would.
    /// A line that cannot be parsed ends the check there; every bad value after a clean parse is listed.
    public init(_ options: DaemonOptions) {
        path = options.configPath ?? DaemonConfiguration.defaultPath
        fileExists = FileManager.default.fileExists(atPath: path)
        problems = []
        let configuration: DaemonConfiguration
        do throws(ConfigurationError) {
            configuration = try options.configuration()
            checked = configuration
        } catch {
            problems = valueProblems(first: error)
            return
        }
        let lines = settingLines()
        func problem(_ section: String, _ key: String, _ message: String) {
            problems.append(
                ConfigurationError(file: path, line: lines["\(section) \(key)"], "[\(section)] \(key): \(message)"))
        }
        for (section, key, file) in [
            ("data", "google_pollen_key_file", configuration.googlePollenKeyFile),
            ("data", "ca_file", configuration.caFile), ("mqtt", "password_file", configuration.mqtt.passwordFile),
            ("mqtt", "ca_file", configuration.mqtt.caFile), ("location", "places_index", configuration.placesIndex),
        ] {
            if let file, let reason = Self.unreadable(file) { problem(section, key, reason) }
        }
        if let indexPath = configuration.placesIndex ?? PlacesIndexLocation.find() {
            if let city = configuration.fallbackCity {
                do {
                    switch Self.fallbackPlace(city, in: try PlacesIndex(path: indexPath)) {
                    case .success(let place): fallbackPlace = place
                    case .failure(let error): problem("location", "fallback_city", error.message)
                    }
                } catch {
                    problems.append(
                        ConfigurationError(file: path, line: nil, "cannot open the places index \(indexPath): \(error)")
                    )
                }
            }
        } else {
            problems.append(
                ConfigurationError(
                    file: path, line: nil,
                    "no places index found; looked in \(PlacesIndexLocation.candidates().joined(separator: ", "))"))
        }
        problems.sort { ($0.line ?? .max) < ($1.line ?? .max) }
    }

    /// The place a `fallback_city` names: a GeoNames id in the index, or a city's whole name; else what is wrong,
    /// with the nearest names (what a search for it finds).
    public static func fallbackPlace(_ city: String, in index: PlacesIndex) -> Result<Place, FallbackCityError> {
        if let id = Int(city) {
            guard let position = index.placeIndex(geonameID: id), let place = index.place(at: position) else {
                return .failure(FallbackCityError("no place has the GeoNames id \(id) in the places index"))
            }
            return .success(place)
        }
        let search = CitySearch(index: index)
        if let place = search.places(named: city).first { return .success(place) }
        let nearest = search.search(city, limit: 3).map { "\($0.place.qualifiedName) (\($0.place.id))" }
        return .failure(
            FallbackCityError(
                "no city is named \"\(city)\""
                    + (nearest.isEmpty
                        ? "; write a city's name or its GeoNames id"
                        : "; the nearest: \(nearest.joined(separator: "; ")); write one of those names or its id")))
    }

    /// Why `file` cannot be read by this user, or nil when it can.
    static func unreadable(_ file: String) -> String? {
        var status = stat()
        guard stat(file, &status) == 0 else {
            return errno == ENOENT ? "\(file) does not exist" : "\(file): \(String(cString: strerror(errno)))"
        }
        if status.st_mode & S_IFMT == S_IFDIR { return "\(file) is a folder, not a file" }
        return access(file, R_OK) == 0 ? nil : "\(file) cannot be read by this user"
    }

    /// Every bad value of the file, each on its own, so that one hides no other; `first` when the file does not
    /// parse.
    private func valueProblems(first: ConfigurationError) -> [ConfigurationError] {
        guard first.line != nil, let file = parsedFile() else { return [first] }
        var found: [ConfigurationError] = []
        for (section, key, entry) in Self.entries(of: file) {
            var configuration = DaemonConfiguration()
            do throws(DaemonConfiguration.ValueError) {
                try configuration.set(section: section, key: key, entry.value)
            } catch {
                found.append(
                    ConfigurationError(
                        file: path, line: entry.line,
                        "\(section.isEmpty ? "" : "[\(section)] ")\(key): \(error.message)"))
            }
        }
        return found.isEmpty ? [first] : found
    }

    /// The line of each setting, by "section key".
    private func settingLines() -> [String: Int] {
        guard let file = parsedFile() else { return [:] }
        var lines: [String: Int] = [:]
        for (section, key, entry) in Self.entries(of: file) { lines["\(section) \(key)"] = entry.line }
        return lines
    }

    private func parsedFile() -> ConfigurationFile? {
        guard let bytes = try? AtomicFile.read(path, limit: ConfigurationFile.maximumSize),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        return try? ConfigurationFile(text: text, name: path)
    }

    private static func entries(of file: ConfigurationFile) -> [(String, String, ConfigurationFile.Entry)] {
        var entries: [(String, String, ConfigurationFile.Entry)] = []
        for (section, keys) in file.sections {
            for (key, entry) in keys { entries.append((section, key, entry)) }
        }
        return entries.sorted { $0.2.line < $1.2.line }
    }

    /// The report: what was checked and every problem, one a line; with no problem, what the fallback city is.
    public var report: String {
        if problems.isEmpty {
            let fallback = fallbackPlace.map { "fallback_city: \($0.qualifiedName) (GeoNames \($0.id))\n" } ?? ""
            return
                (fileExists
                ? "\(path): the configuration can be used\n"
                : "\(path): no such file; the defaults apply\n") + fallback
        }
        return problems.map { "\($0.description)\n" }.joined()
    }
}

/// Why a `fallback_city` names no place.
public struct FallbackCityError: Error, Sendable {
    public var message: String
    init(_ message: String) { self.message = message }
}
