/// A failed D-Bus exchange: the error name (`org.freedesktop.DBus.Error.AccessDenied`, or one of ours) and message.
public struct BusError: Error, Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public static let timeoutName = "breeze.Error.Timeout"
    public static let disconnectedName = "breeze.Error.Disconnected"
    public static let badReplyName = "breeze.Error.BadReply"

    static func timeout(_ what: String, _ seconds: Double) -> BusError {
        BusError(name: timeoutName, message: "\(what): no answer within \(seconds) s")
    }

    static func disconnected(_ detail: String) -> BusError {
        BusError(name: disconnectedName, message: detail)
    }

    static func badReply(_ detail: String) -> BusError {
        BusError(name: badReplyName, message: detail)
    }

    public var isTimeout: Bool { name == Self.timeoutName || name == "org.freedesktop.DBus.Error.NoReply" }
    public var isAccessDenied: Bool { name == "org.freedesktop.DBus.Error.AccessDenied" }
    public var isServiceUnknown: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    public var description: String { "\(name): \(message)" }
}
