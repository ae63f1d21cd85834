import BreezeGPSD
import Testing

@Suite struct GPSDAddressTests {
    @Test(arguments: [
        ("127.0.0.1:2947", "127.0.0.1", 2947), ("localhost", "localhost", 2947), (":47000", "127.0.0.1", 47000),
        ("[::1]:3000", "::1", 3000), ("gps.local:1", "gps.local", 1),
    ])
    func parses(text: String, host: String, port: Int) throws {
        let address = try #require(GPSDAddress(text))
        #expect(address.host == host && address.port == port)
    }

    @Test(arguments: ["host:", "host:0", "host:70000", "host:port", "[::1]x"])
    func rejects(text: String) {
        #expect(GPSDAddress(text) == nil)
    }

    @Test func printsIPv6InBrackets() {
        #expect(GPSDAddress(host: "::1", port: 5).description == "[::1]:5")
    }
}
