/// Who answers each command: the socket server, from what it holds (the latest object of each class and each
/// client's watch), or the daemon. The one place a command is assigned; both sides switch over their own part, so a
/// new command cannot be left unanswered.
public enum RequestRoute: Hashable, Sendable {
    /// Answered by the socket server itself.
    public enum ServerCommand: Hashable, Sendable {
        case version, status, watch, unwatch
    }

    /// Handed to the daemon (the read-only ones answered in place; see the daemon's `ReadOnlyRequests`).
    public enum DaemonCommand: Hashable, Sendable {
        case search, select, here, saved, popular, location, refresh, lookup, look
    }

    case server(ServerCommand)
    case daemon(DaemonCommand)
}

extension ProtocolRequest.Command {
    /// Who answers this command.
    public var route: RequestRoute {
        switch self {
        case .version: .server(.version)
        case .status: .server(.status)
        case .watch: .server(.watch)
        case .unwatch: .server(.unwatch)
        case .search: .daemon(.search)
        case .select: .daemon(.select)
        case .here: .daemon(.here)
        case .saved: .daemon(.saved)
        case .popular: .daemon(.popular)
        case .location: .daemon(.location)
        case .refresh: .daemon(.refresh)
        case .lookup: .daemon(.lookup)
        case .look: .daemon(.look)
        }
    }
}
