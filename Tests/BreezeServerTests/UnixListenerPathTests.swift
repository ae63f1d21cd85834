import BreezeServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A socket path fits `sun_path` with its NUL: 1 to 107 bytes.
@Suite struct UnixListenerPathTests {
    /// A path of exactly `length` bytes in a fresh folder under /tmp (the folder's name pads it).
    static func path(length: Int) throws -> (folder: String, path: String) {
        let base = "/tmp/breeze-path-" + UUID().uuidString.prefix(8)
        let name = "/s.sock"
        let padding = length - base.utf8.count - name.utf8.count
        try #require(padding > 1)
        let folder = base + "-" + String(repeating: "p", count: padding - 1)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (folder, folder + name)
    }

    @Test func aPathOf107BytesIsTaken() throws {
        let (folder, path) = try Self.path(length: 107)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(path.utf8.count == 107)
        let listener = try UnixListener(path: path)
        defer { listener.removeSocketFile() }
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
    }

    @Test func aPathOf108BytesIsTooLong() throws {
        let (folder, path) = try Self.path(length: 108)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(path.utf8.count == 108)
        #expect(throws: ListenerError(.pathTooLong, "\(path): a socket path is 1 to 107 bytes")) {
            _ = try UnixListener(path: path)
        }
        #expect(access(path, F_OK) != 0)
    }

    @Test func anEmptyPathIsRefused() {
        #expect {
            _ = try UnixListener(path: "")
        } throws: { error in
            (error as? ListenerError)?.code == .pathTooLong
        }
    }
}
