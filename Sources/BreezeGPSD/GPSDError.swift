public import BreezeCore

/// Why talking to gpsd failed: a code, a message that says what failed, and the cause underneath where there is
/// one (a `SystemCallError`, or libgps's own `LibGPSError`).
public typealias GPSDError = CodedError<GPSDErrorCode>

public enum GPSDErrorCode: String, Sendable {
    /// Nothing accepts connections at the address: gpsd is not running there.
    case unreachable
    /// The host name in the address does not resolve (DNS, or /etc/hosts).
    case hostNotFound = "host-not-found"
    /// The address cannot be used: an unknown port or service name, or no socket could be made for it.
    case badAddress = "bad-address"
    /// A system call failed on our side (out of descriptors or memory).
    case system
    /// gpsd accepted the connection and closed it at once (no free client slots, or restarting).
    case refused
    /// The connection broke.
    case lost
    /// gpsd sent nothing for too long after we connected.
    case silent
}
