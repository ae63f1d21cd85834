import BreezeTestSupport
import BreezeWeb
import Foundation
import Testing

/// The HTTP client's redirects and TLS against a loopback server (`Tests/Fixtures/redirect-fixture.py`): redirects
/// are followed to an answer, but not without end and not off http and https; an HTTPS server is trusted only
/// when its certificate chains to a trusted authority; a response's headers are bounded.
@Suite struct RedirectAndTLSTests {
    static func http(caFile: String? = nil) -> HTTPClient {
        HTTPClient(userAgent: "breezed-tests/1 (loopback)", timeout: 5, deadline: 15, caFile: caFile)
    }

    /// The fetch's error, or nil when it succeeded.
    static func error(_ client: HTTPClient, _ url: URL) async -> WebError? {
        do throws(WebError) {
            _ = try await client.get(url)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Redirects

    @Test func a302AndA301AreFollowedToTheFinalBody() async throws {
        let server = try await RedirectServer()
        defer { server.stop() }
        let client = Self.http()
        for path in ["/302", "/301"] {
            let response = try await client.get(server.url(path))
            #expect(response.status == 200, "\(path)")
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"final": true}"#, "\(path)")
        }
    }

    @Test func aRedirectLoopEndsWithAClearErrorAfterTenRedirects() async throws {
        let server = try await RedirectServer()
        defer { server.stop() }
        let error = await Self.error(Self.http(), server.url("/loop/0"))
        #expect(error?.code == .transport, "\(String(describing: error))")
        #expect(error?.description.contains("more than 10 redirects") == true, "\(String(describing: error))")
        // The first request and ten redirects, not one more.
        let loops = try await Self.http().get(server.url("/_loops"))
        #expect(String(decoding: loops.body, as: UTF8.self) == "11")
    }

    @Test func aRedirectToAFileURLIsRefused() async throws {
        let server = try await RedirectServer()
        defer { server.stop() }
        let client = Self.http()
        let error = await Self.error(client, server.url("/file"))
        #expect(error?.code == .transport, "\(String(describing: error))")
        #expect(error?.description.contains("only http and https") == true, "\(String(describing: error))")
        #expect(error?.description.contains("file") == true, "\(String(describing: error))")
    }

    // MARK: Headers

    @Test func headersPastTheirBoundAreRefusedAndHeadersWithinItRead() async throws {
        let server = try await RedirectServer()
        defer { server.stop() }
        let client = Self.http()
        // About 7 KB of one header repeated: read, the repeats joined.
        let response = try await client.get(server.url("/headers/100"))
        #expect(response.status == 200)
        #expect(response.headers["x-filler"]?.contains("000099") == true)
        // About 140 KB: refused, and the client still answers the next request.
        let error = await Self.error(client, server.url("/headers/2000"))
        #expect(error?.code == .tooLarge, "\(String(describing: error))")
        #expect(error?.description.contains("headers") == true, "\(String(describing: error))")
        #expect(try await client.get(server.url("/final")).status == 200)
    }

    // MARK: TLS

    @Test func aCertificateFromAnAuthorityNotTrustedIsRefusedAndOneFromATrustedAuthorityAccepted() async throws {
        let folder = TemporaryPaths.make("tls")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await TestCertificates.make(in: folder)
        let server = try await RedirectServer(certificate: folder + "/server.pem", key: folder + "/server.key")
        defer { server.stop() }
        let url = server.url("/302")
        #expect(url.scheme == "https")

        // The system's authorities do not know the test's.
        let untrusted = await Self.error(Self.http(), url)
        #expect(untrusted?.code == .transport, "\(String(describing: untrusted))")
        #expect(untrusted?.description.contains("certificate is not trusted") == true, "\(String(describing: untrusted))")

        // Another authority of the test's own is not the one that signed the server's certificate.
        let other = await Self.error(Self.http(caFile: folder + "/other-ca.pem"), url)
        #expect(other?.code == .transport, "\(String(describing: other))")
        #expect(other?.description.contains("certificate is not trusted") == true, "\(String(describing: other))")

        // The authority that signed it, trusted: the request succeeds, redirect included.
        let response = try await Self.http(caFile: folder + "/ca.pem").get(url)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"final": true}"#)
    }
}

/// The redirect fixture, over HTTP, or over HTTPS with the given certificate and key.
final class RedirectServer: Sendable {
    let port: Int
    let scheme: String
    private let process: ChildProcess

    static let script = FixtureServer.script("redirect-fixture.py")

    init(certificate: String? = nil, key: String? = nil) async throws {
        var arguments: [String] = []
        if let certificate, let key { arguments += [certificate, key] }
        (process, port) = try await FixtureServer.launch(Self.script, arguments, name: "redirect fixture")
        scheme = certificate == nil ? "http" : "https"
    }

    deinit {
        stop()
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }

    func url(_ path: String) -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }
}
