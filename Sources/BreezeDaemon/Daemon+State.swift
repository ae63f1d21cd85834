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
    /// Remembers the place of the live position (the fallback's last resort while location is on).
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
        if new.fallbackCity != configuration.fallbackCity {
            changed.append("fallback_city")
            let fallback = Self.fallback(new, state, index)
            Task { await location.setFallback(fallback) }
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

    static func fallback(
        _ configuration: DaemonConfiguration, _ state: UserState, _ index: PlacesIndex
    ) -> Place? {
        if let city = configuration.fallbackCity {
            // Named exactly, or not at all: `--check-config` and the start refuse a name that matches no city.
            if case .success(let place) = ConfigurationCheck.fallbackPlace(city, in: index) { return place }
        }
        // The last place named came from the live position: while location is off, it is not shown.
        return (state.locationEnabled ? state.lastPlace : nil) ?? state.saved.first
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
