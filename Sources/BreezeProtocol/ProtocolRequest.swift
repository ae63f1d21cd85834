public import BreezeCore

/// A request from a client: one JSON object on one line, `{"command":"…","id":…, arguments…}`.
public struct ProtocolRequest: Hashable, Sendable {
    public enum Command: String, CaseIterable, Sendable {
        case status, watch, unwatch, search, select, here, saved, popular, location, refresh, lookup, look, version

        /// The command `name` is, in any case (`Version`, `SEARCH`).
        init?(anyCase name: String) {
            self.init(rawValue: name.lowercased())
        }

        /// Commands that change the daemon's state: allowed only to trusted peers.
        public var changesState: Bool {
            switch self {
            case .select, .here, .refresh, .location: true
            case .saved: true  // "list" is read-only; see `ProtocolRequest.changesState`
            default: false
            }
        }
    }

    public var command: Command
    /// Echoed in the reply, so a client can match replies to requests. A string or a number.
    public var id: JSONValue?
    /// The whole request object.
    public var body: JSONValue

    /// Parses a request line. Throws `malformed-json`, `unknown-command` or `bad-argument`; past the JSON, the error
    /// carries the line's `id` (`requestID`) when it has a usable one, so that its `ERROR` answers it.
    public static func parse(_ line: String) throws(ProtocolError) -> ProtocolRequest {
        let body = try JSONValue.parse(line)
        guard case .object = body else { throw ProtocolError(.malformedJSON, "a request is a JSON object") }
        let id = body["id"]
        if let id {
            switch id {
            case .string, .number: break
            default: throw ProtocolError(.badArgument, "\"id\" must be a string or a number")
            }
        }
        guard let name = body["command"]?.stringValue else {
            throw ProtocolError(
                .badArgument, "a request needs \"command\", e.g. {\"command\":\"status\"}", requestID: id)
        }
        guard let command = Command(anyCase: name) else {
            let known = Command.allCases.map(\.rawValue).joined(separator: ", ")
            throw ProtocolError(.unknownCommand, "unknown command \"\(name)\"; known: \(known)", requestID: id)
        }
        return ProtocolRequest(command: command, id: id, body: body)
    }

    /// True when this request changes state (`saved` changes it unless its action is "list").
    public var changesState: Bool {
        if command == .saved { return (try? string("action", default: "list")) != "list" }
        return command.changesState
    }

    /// A string argument; `default` when absent.
    public func string(_ key: String, default fallback: String? = nil) throws(ProtocolError) -> String {
        switch body[key] {
        case .string(let value)?: return value
        case nil, .null?:
            if let fallback { return fallback }
            throw ProtocolError(.badArgument, "\(command.rawValue) needs \"\(key)\"")
        default: throw ProtocolError(.badArgument, "\"\(key)\" must be a string")
        }
    }

    /// A number argument; `default` when absent.
    public func number(_ key: String, default fallback: Double? = nil) throws(ProtocolError) -> Double {
        switch body[key] {
        case .number(let value)?: return value
        case nil, .null?:
            if let fallback { return fallback }
            throw ProtocolError(.badArgument, "\(command.rawValue) needs \"\(key)\"")
        default: throw ProtocolError(.badArgument, "\"\(key)\" must be a number")
        }
    }

    /// A whole-number argument within `range`; `default` when absent. A fraction, a number outside the range (1e19
    /// included) or another type is `bad-argument` naming the field, never a trap converting it.
    public func integer(_ key: String, default fallback: Int? = nil, in range: ClosedRange<Int>)
        throws(ProtocolError) -> Int
    {
        // Made only when it is thrown: its text costs more than the rest of an argument read.
        func outOfRange() -> ProtocolError {
            ProtocolError(
                .badArgument, "\"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        switch body[key] {
        case .number(let value)?:
            guard let integer = Int(exactly: value), range.contains(integer) else { throw outOfRange() }
            return integer
        case nil, .null?:
            if let fallback { return fallback }
            throw ProtocolError(.badArgument, "\(command.rawValue) needs \"\(key)\"")
        default: throw outOfRange()
        }
    }

    /// A list of protocol class names (`watch`'s `classes`), each one of `known` in any case; nil when absent. An
    /// unknown name, an empty list or another type is `bad-argument`: a watch must never silently watch nothing.
    public func classes(_ key: String, known: [String]) throws(ProtocolError) -> Set<String>? {
        let usage = "\"\(key)\" is a list of classes from \(known.joined(separator: ", "))"
        switch body[key] {
        case nil, .null?:
            return nil
        case .array(let items)?:
            var names = Set<String>()
            for item in items {
                guard let name = item.stringValue?.uppercased(), known.contains(name) else {
                    throw ProtocolError(.badArgument, "\(usage); not \(item.encoded())")
                }
                names.insert(name)
            }
            guard !names.isEmpty else { throw ProtocolError(.badArgument, "\(usage), or leave it out for all of them") }
            return names
        default:
            throw ProtocolError(.badArgument, usage)
        }
    }

    /// A true-or-false argument; `default` when absent.
    public func bool(_ key: String, default fallback: Bool? = nil) throws(ProtocolError) -> Bool {
        switch body[key] {
        case .bool(let value)?: return value
        case nil, .null?:
            if let fallback { return fallback }
            throw ProtocolError(.badArgument, "\(command.rawValue) needs \"\(key)\"")
        default: throw ProtocolError(.badArgument, "\"\(key)\" must be true or false")
        }
    }
}
