import BreezeServer
import BreezeSystem
import BreezeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking connect: 0, or the errno it failed with (EAGAIN when the listener's backlog is full).
func connectWithoutWaiting(to path: String, keeping descriptors: inout [Int32]) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return errno }
    let status = UnixSocketAddress(path: path)?.connect(fd) ?? -1
    let failure = errno
    if status != 0 {
        close(fd)
        return failure
    }
    descriptors.append(fd)
    return 0
}

func temporarySocketPath(_ name: String) -> String {
    TemporaryPaths.make(name, suffix: ".sock")
}

func umaskNow() -> String? {
    (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("Umask:") }.map(String.init)
}

@Suite struct UnixListenerTests {
    @Test func theSocketIsOpenToEveryLocalUserAndTheUmaskIsLeftAlone() throws {
        let path = temporarySocketPath("mode")
        let before = umaskNow()
        let listener = try UnixListener(path: path)
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o666)
        #expect(umaskNow() == before)
        _ = listener
    }

    @Test func aLiveDaemonsSocketIsNotTakenOver() throws {
        let path = temporarySocketPath("live")
        let first = try UnixListener(path: path)
        do {
            _ = try UnixListener(path: path)
            Issue.record("a second listener took over \(path)")
        } catch {
            #expect(error.code == .inUse)
            #expect(error.description == "another breezed is listening on \(path)")
        }
        let client = UnixSocket.connect(to: path)
        #expect(client != nil, "the first listener still answers")
        if let client { close(client) }
        _ = first
    }

    @Test func aStaleSocketIsReplaced() throws {
        let path = temporarySocketPath("stale")
        // A socket file nobody listens on: what a daemon killed with SIGKILL leaves.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = UnixSocketAddress(path: path)?.bind(stale)
        #expect(bound == 0)
        close(stale)
        let listener = try UnixListener(path: path)
        let client = UnixSocket.connect(to: path)
        #expect(client != nil)
        if let client { close(client) }
        _ = listener
    }

    @Test func closingRemovesOnlyTheSocketItMade() throws {
        let path = temporarySocketPath("own")
        var first: UnixListener? = try UnixListener(path: path)
        unlink(path)  // someone removed it, and another listener made the path again
        let second = try UnixListener(path: path)
        first = nil
        #expect(first == nil)
        let client = UnixSocket.connect(to: path)
        #expect(client != nil, "the second listener's socket is still there")
        if let client { close(client) }
        _ = second
    }

    @Test func theBacklogHoldsAsManyClientsAsTheServerServes() throws {
        SocketServer.raiseDescriptorLimit(atLeast: 4_096)
        let path = temporarySocketPath("backlog")
        let listener = try UnixListener(path: path)
        // Nobody accepts: every connection waits in the backlog.
        var descriptors: [Int32] = []
        defer { descriptors.forEach { close($0) } }
        var failures: [Int32] = []
        for _ in 0..<SocketServer.Configuration().maximumClients {
            let failure = connectWithoutWaiting(to: path, keeping: &descriptors)
            if failure != 0 { failures.append(failure) }
        }
        #expect(failures.isEmpty, "\(failures.count) refused, first errno \(failures.first ?? 0)")
        _ = listener
    }

    @Test func aFileInTheWayIsNotRemoved() async throws {
        let path = TemporaryPaths.make("not-a-socket")
        _ = FileManager.default.createFile(atPath: path, contents: Data("keep".utf8))
        defer { unlink(path) }
        #expect(throws: ListenerError.self) { try UnixListener(path: path) }
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
    }
}
