import BreezeMQTT
import BreezeTestSupport
import Foundation
import Testing

/// A broker's password read from a file: its first line, whatever the line ending, and a clear error otherwise.
@Suite struct MQTTBrokerPasswordFileTests {
    func file(_ text: String) throws -> String {
        let path = TemporaryPaths.make("password")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: ["s3cret pass\n", "s3cret pass\r\nsecond line\r\n", "s3cret pass"])
    func theFirstLineIsThePassword(text: String) throws {
        let broker = try MQTTBroker(url: "mqtt://viewer@broker.lan").withPassword(fromFile: try file(text))
        #expect(broker.password == "s3cret pass")
        #expect(broker.username == "viewer")
    }

    @Test func aPasswordWithoutAUserIsRefused() throws {
        let path = try file("s3cret\n")
        #expect(throws: MQTTError(
            .badConfiguration, "the password file \(path) needs a user in the URL (mqtt://user@host)")) {
            try MQTTBroker(url: "mqtt://broker.lan").withPassword(fromFile: path)
        }
    }

    @Test func aMissingFileIsNamed() throws {
        let path = TemporaryPaths.make("absent")
        #expect(throws: MQTTError(.badConfiguration, "cannot read the password file \(path): it does not exist")) {
            try MQTTBroker(url: "mqtt://viewer@broker.lan").withPassword(fromFile: path)
        }
    }
}
