public import BreezeCore
internal import CMosquitto

/// What went wrong talking to an MQTT broker: a code, a message for people, and libmosquitto's own result code
/// (`MosquittoResult`) as the cause.
public typealias MQTTError = CodedError<MQTTErrorCode>

public enum MQTTErrorCode: String, Sendable {
    /// The broker's address or a setting cannot be used.
    case badConfiguration = "bad-configuration"
    /// The broker could not be reached, or the connection ended.
    case unreachable
    /// The broker answered the connection with a refusal (bad credentials, not authorised).
    case refused
    /// Any other libmosquitto failure.
    case library
}

/// libmosquitto's `MOSQ_ERR_*` value, or the CONNACK code of a refusal.
public struct MosquittoResult: Error, Hashable, Sendable {
    public var value: Int32
}

extension MQTTError {
    /// The error for libmosquitto's `result` from `call`, with `mosquitto_strerror`'s reason.
    static func library(_ call: String, _ result: Int32) -> MQTTError {
        let reason = MQTTLibrary.reason(result)
        let code: Code =
            switch result {
            case Int32(MOSQ_ERR_NO_CONN.rawValue), Int32(MOSQ_ERR_CONN_LOST.rawValue), Int32(MOSQ_ERR_ERRNO.rawValue),
                Int32(MOSQ_ERR_EAI.rawValue), Int32(MOSQ_ERR_KEEPALIVE.rawValue), Int32(MOSQ_ERR_TLS.rawValue),
                Int32(MOSQ_ERR_PROTOCOL.rawValue):
                .unreachable
            case Int32(MOSQ_ERR_CONN_REFUSED.rawValue): .refused
            case Int32(MOSQ_ERR_INVAL.rawValue): .badConfiguration
            default: .library
            }
        return MQTTError(code, "\(call): \(reason)", cause: MosquittoResult(value: result))
    }

    /// The refusal the broker answered a connection with: `mosquitto_connack_string`'s reason.
    static func refused(_ connack: Int32) -> MQTTError {
        MQTTError(
            .refused, "the broker refused the connection: \(MQTTLibrary.connackReason(connack))",
            cause: MosquittoResult(value: connack))
    }
}

/// Turns a libmosquitto result into a thrown error naming the call.
@inline(__always)
func check(_ call: String, _ result: Int32) throws(MQTTError) {
    guard result == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MQTTError.library(call, result) }
}
