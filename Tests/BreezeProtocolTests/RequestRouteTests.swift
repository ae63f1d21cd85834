import BreezeProtocol
import Testing

/// Each command has one answerer: the server answers what it holds, the daemon the rest.
@Suite struct RequestRouteTests {
    @Test func theServerAnswersVersionStatusWatchAndUnwatch() {
        let server = ProtocolRequest.Command.allCases.filter {
            if case .server = $0.route { true } else { false }
        }
        #expect(server == [.status, .watch, .unwatch, .version])
    }

    @Test func everyOtherCommandGoesToTheDaemon() {
        let routes: [ProtocolRequest.Command: RequestRoute] = [
            .search: .daemon(.search), .select: .daemon(.select), .here: .daemon(.here), .saved: .daemon(.saved),
            .popular: .daemon(.popular), .location: .daemon(.location), .refresh: .daemon(.refresh),
            .lookup: .daemon(.lookup), .look: .daemon(.look), .status: .server(.status), .watch: .server(.watch),
            .unwatch: .server(.unwatch), .version: .server(.version),
        ]
        for command in ProtocolRequest.Command.allCases {
            #expect(command.route == routes[command], "\(command)")
        }
    }
}
