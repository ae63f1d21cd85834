import BreezeCore
import BreezeData
import BreezeLocation
import BreezeMQTT
import BreezePlaces
import BreezeProtocol
import BreezeServer
import BreezeWeb
import FoundationEssentials

/// The user's state on disk, the configuration reloaded, and the fallback city.
extension Daemon {
    /// Remembers the place of the live position (restored at the next start while location is on).
    func recordLastPlace() {
        guard state.locationEnabled, let update = shown.live, update.fix != nil, state.lastPlace?.id != update.place.id
        else { return }
        state.lastPlace = update.place
        saveState()
    }

    func saveState() {
        do {
            try store.save(state)
        } catch {
            logger.error("state.write_failed", ["path": store.path, "error": error])
        }
    }

    func applyReload(_ new: DaemonConfiguration) {
        var changed: [String] = []
        // Compared with the city in use, not the start's configuration: a second reload may go back to it.
        let city = Self.fallbackCity(new, index)
        if city != shown.fallbackCity {
            changed.append("fallback_city")
            shown.fallbackCity = city
            standInChanged()
        }
        // Only the fallback city is applied while running; every other change waits for a restart, by name.
        var others = new
        others.fallbackCity = configuration.fallbackCity
        let needsRestart = others.settingsChanged(from: configuration)
        logger.notice(
            "config.reloaded",
            [
                "applied": changed.isEmpty ? "none" : changed.joined(separator: ","),
                "restart_needed_for": needsRestart.isEmpty ? "none" : needsRestart.joined(separator: ", "),
            ])
    }

    // MARK: Helpers

    /// The configuration's `fallback_city`: named exactly, or not at all (`--check-config` and the start refuse a
    /// name that matches no city).
    static func fallbackCity(_ configuration: DaemonConfiguration, _ index: PlacesIndex) -> Place? {
        guard let city = configuration.fallbackCity,
            case .success(let place) = ConfigurationCheck.fallbackPlace(city, in: index)
        else { return nil }
        return place
    }

    /// What a peer outside the trusted group is told with its city-level positions and refused changes.
    static func exactPositionsHint(group: String) -> String {
        "exact positions and changes are for members of the group \(group): "
            + "'sudo usermod -aG \(group) $USER', then log in again"
    }

    static func googleKey(_ configuration: DaemonConfiguration, _ logger: Logger) -> String? {
        if let key = configuration.googlePollenKey { return key }
        guard let file = configuration.googlePollenKeyFile else { return nil }
        guard let data = FileManager.default.contents(atPath: file),
            let key = String(data: data, encoding: .utf8)?.trimmingWhitespaceAndNewlines(), !key.isEmpty
        else {
            logger.warning("pollen.key_unreadable", ["file": file])
            return nil
        }
        return key
    }
}
