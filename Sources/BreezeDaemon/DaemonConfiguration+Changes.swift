import BreezeCore

extension DaemonConfiguration {
    /// The settings this configuration gives otherwise than `earlier`, named as the file names them
    /// (`[gpsd] address`, `[data] air_refresh`), in the file's order of sections. A reload names those it cannot
    /// apply until a restart.
    public func settingsChanged(from earlier: DaemonConfiguration) -> [String] {
        var names: [String] = []
        func compare<Value: Equatable>(_ name: String, _ value: (DaemonConfiguration) -> Value) {
            if value(self) != value(earlier) { names.append(name) }
        }
        compare("[gpsd] enabled") { $0.gpsd == nil }
        compare("[gpsd] address") { $0.gpsd }
        compare("[geoclue] enabled", \.geoclue)
        compare("[geoclue] agent", \.geoclueAgent)
        compare("[geoclue] accuracy", \.geoclueAccuracy)
        compare("[location] movement_threshold", \.movementThreshold)
        compare("[location] fix_timeout", \.fixTimeout)
        compare("[location] fallback_city", \.fallbackCity)
        compare("[location] online_reverse_geocoding", \.onlineReverseGeocoding)
        compare("[location] places_index", \.placesIndex)
        compare("[data] offline", \.offline)
        compare("[data] web addresses (api_base, …_url)", \.endpoints)
        compare("[data] google_pollen_key", \.googlePollenKey)
        compare("[data] google_pollen_key_file", \.googlePollenKeyFile)
        compare("[data] ca_file", \.caFile)
        for dataset in Dataset.allCases {
            compare("[data] \(dataset.refreshKey)") { $0.refresh[dataset] }
        }
        compare("[data] requests_per_hour", \.requestsPerHour)
        compare("[socket] path", \.socketPath)
        compare("[socket] group") { $0.socketGroupID }
        compare("[socket] round_coordinates", \.roundCoordinatesForOthers)
        compare("[socket] max_clients", \.maximumClients)
        compare("[daemon] state_dir", \.stateDirectory)
        compare("[daemon] cache_dir", \.cacheDirectory)
        compare("[daemon] log_level", \.logLevel)
        compare("[mqtt]", \.mqtt)
        return names
    }
}
