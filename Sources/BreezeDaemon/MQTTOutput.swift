import BreezeMQTT

/// The daemon's side of the broker: the publisher (nil without `--mqtt` or `[mqtt] url`), its link's changes of state
/// on their way to the daemon's actor, and the place whose data goes to the broker.
struct MQTTOutput {
    let publisher: MQTTPublisher?
    let states: AsyncStream<MQTTLink.State>
    /// The place whose data goes to the broker: the one shown, nil while none is.
    var placeID: Int?
}
