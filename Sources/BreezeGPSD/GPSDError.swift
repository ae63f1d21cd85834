/// Why talking to gpsd failed.
public struct GPSDError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// gpsd is not running there, or the address is wrong.
        case unreachable
        /// gpsd accepted the connection and closed it at once (no free client slots, or restarting).
        case refused
        /// The connection broke.
        case lost
        /// gpsd sent nothing for too long after we connected.
        case silent
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
