import Foundation

/// Certificates made with `openssl` for a test: an authority (`ca.pem`), a server certificate it signed for
/// 127.0.0.1 and localhost (`server.pem`, `server.key`), and a second, unrelated authority (`other-ca.pem`).
public enum TestCertificates {
    public static func make(in folder: String) async throws {
        let script = """
            set -e
            cd "$1"
            exec 2> openssl.log
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=critical,CA:FALSE\\nextendedKeyUsage=serverAuth\\n' > server.ext
            for ca in ca other-ca; do
              openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \\
                -subj "/CN=Breeze test $ca" -addext basicConstraints=critical,CA:TRUE \\
                -addext keyUsage=critical,keyCertSign,cRLSign -keyout $ca.key -out $ca.pem
            done
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \\
              -keyout server.key -out server.csr
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \\
              -extfile server.ext -out server.pem
            """
        let process = try ChildProcess.spawn("/bin/sh", ["-c", script, "sh", folder])
        let ended = await onDedicatedThread { process.waitUntilExit(timeout: 60) }
        guard ended, process.terminationStatus == 0 else {
            process.terminate()
            let text = (try? String(contentsOfFile: folder + "/openssl.log", encoding: .utf8)) ?? ""
            throw WebFixture.FixtureError(message: "openssl could not make the test's certificates: \(text)")
        }
    }
}
