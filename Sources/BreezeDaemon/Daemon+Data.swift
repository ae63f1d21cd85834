import BreezeCore
import BreezeData
import BreezeLocation
import BreezeMQTT
import BreezePlaces
import BreezeProtocol
import BreezeServer
import BreezeWeb
import FoundationEssentials

/// The data's updates, and what goes to the broker and to systemd's status line.
extension Daemon {
    func publishInitialData() {
        for dataset in Dataset.allCases {
            server?.publish(
                configuration.offline
                    ? DatasetMessage.empty(dataset, status: .offline, reason: "web requests are off (--offline)")
                    : DatasetMessage.empty(dataset, status: .loading))
        }
    }

    /// Publishes a dataset's update from the pipeline, to the socket and (for the place shown) the broker, and gives
    /// it to the refresh waits.
    func dataChanged(_ update: DataUpdate) {
        let publishedAt = Date().timeIntervalSince1970
        let message = DatasetMessage.message(
            update.dataset, status: update.status, place: update.place, report: update.report,
            fetchedAt: update.fetchedAt, now: publishedAt,
            freshFor: configuration.refresh[update.dataset] ?? update.dataset.defaultFreshness,
            lastFailure: update.lastFailure, retryAt: update.retryAt)
        server?.publish(message)
        for key in refreshWaits.keys {
            refreshWaits[key]!.record(update, publishedAt: publishedAt)
            if refreshWaits[key]!.isComplete { endRefreshWait(key) }
        }
        // Only the data of the place shown: a late answer for a place left (perhaps one named from a live position
        // since switched off) is not published.
        if let publisher = mqtt.publisher, update.place.id == mqtt.placeID {
            publisher.dataset(update.dataset, message)
        }
        if let state = update.state(as: AirQualityReport.self) {
            status.aqi = state.report?.usAQI.flatMap { Int(exactly: $0.rounded()) }.map { "AQI \($0)" } ?? ""
            updateStatus()
        }
    }

    /// Tells systemd the one-line status when it changed (not on every position).
    func updateStatus() {
        if let line = status.changedLine(permission: shown.permission) { systemd.notify(line) }
    }

    // MARK: MQTT

    /// The retained data of the place left is replaced at once (by `loading`), not kept until the next place's
    /// arrives: after location is switched off, the broker keeps nothing named from the live position.
    func forgetMQTTData() {
        guard let publisher = mqtt.publisher else { return }
        for dataset in Dataset.allCases {
            publisher.publish(
                dataset.rawValue,
                configuration.offline
                    ? DatasetMessage.empty(dataset, status: .offline, reason: "web requests are off (--offline)")
                    : DatasetMessage.empty(dataset, status: .loading))
        }
    }

    func mqttStateChanged(_ state: MQTTLink.State) {
        guard let publisher = mqtt.publisher else { return }
        server?.setVersionMembers([("mqtt", publisher.statusObject(state))])
        switch state {
        case .connected:
            status.mqtt = "MQTT connected"
            logger.notice("mqtt.connected", ["broker": publisher.link.configuration.broker.description])
        case .unreachable(let reason):
            status.mqtt = "MQTT broker unreachable: \(reason)"
            logger.warning(
                "mqtt.unreachable", ["broker": publisher.link.configuration.broker.description, "reason": reason])
        case .refused(let reason):
            status.mqtt = "MQTT broker refused breezed: \(reason)"
            logger.warning(
                "mqtt.refused", ["broker": publisher.link.configuration.broker.description, "reason": reason])
        case .connecting:
            status.mqtt = "MQTT connecting"
        case .stopped:
            status.mqtt = nil
        }
        updateStatus()
    }
}
