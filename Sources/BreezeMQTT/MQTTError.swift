public import BreezeCore
internal import CMosquitto

#if canImport(Glibc)
    import Glibc
#endif

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
    /// The error for libmosquitto's `result` from `call`: in people's words where the result is one a broker
    /// or the network causes (the call and libmosquitto's code stay in the cause), else with `mosquitto_strerror`'s
    /// reason after the call's name.
    static func library(_ call: String, _ result: Int32) -> MQTTError {
        let cause = MosquittoResult(value: result)
        switch result {
        case Int32(MOSQ_ERR_EAI.rawValue):
            return MQTTError(.unreachable, "cannot resolve the broker's host name", cause: cause)
        case Int32(MOSQ_ERR_ERRNO.rawValue):
            return MQTTError(.unreachable, "cannot connect: \(String(cString: strerror(errno)))", cause: cause)
        case Int32(MOSQ_ERR_NO_CONN.rawValue), Int32(MOSQ_ERR_CONN_LOST.rawValue):
            return MQTTError(.unreachable, "the connection to the broker was lost", cause: cause)
        case Int32(MOSQ_ERR_KEEPALIVE.rawValue):
            return MQTTError(.unreachable, "the broker stopped answering", cause: cause)
        case Int32(MOSQ_ERR_TLS.rawValue):
            return MQTTError(
                .unreachable, "the TLS handshake failed: check [mqtt] ca_file and the broker's certificate",
                cause: cause)
        case Int32(MOSQ_ERR_PROTOCOL.rawValue):
            return MQTTError(.unreachable, "the broker answered with something other than MQTT", cause: cause)
        case Int32(MOSQ_ERR_CONN_REFUSED.rawValue):
            return MQTTError(.refused, "the broker refused the connection", cause: cause)
        case Int32(MOSQ_ERR_INVAL.rawValue):
            return MQTTError(.badConfiguration, "\(call): \(MQTTLibrary.reason(result))", cause: cause)
        default:
            return MQTTError(.library, "\(call): \(MQTTLibrary.reason(result))", cause: cause)
        }
    }

    /// The refusal the broker answered a connection with: `mosquitto_connack_string`'s reason.
    static func refused(_ connack: Int32) -> MQTTError {
        // CONNACK 4 (MQTT 3.1.1: bad user name or password) and 5 (not authorised) are the credentials' fault.
        let hint = connack == 4 || connack == 5 ? "; check the user in [mqtt] url and password_file" : ""
        return MQTTError(
            .refused, "the broker refused the connection: \(MQTTLibrary.connackReason(connack))\(hint)",
            cause: MosquittoResult(value: connack))
    }
}

/// Turns a libmosquitto result into a thrown error naming the call.
@inline(__always)
func check(_ call: String, _ result: Int32) throws(MQTTError) {
    guard result == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MQTTError.library(call, result) }
}
