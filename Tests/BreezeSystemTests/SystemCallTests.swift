import BreezeSystem
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The system-call funnel: a result passes through, EINTR is retried, any other failure names the call and errno.
@Suite struct SystemCallTests {
    @Test func aResultPassesThroughOnTheFirstCall() throws {
        var calls = 0
        let result = try syscall("answer") { () -> Int32 in
            calls += 1
            return 42
        }
        #expect(result == 42)
        #expect(calls == 1)
    }

    @Test func zeroAndOtherNegativeResultsAreResults() throws {
        #expect(try syscall("zero") { Int32(0) } == 0)
        #expect(try syscall("minus two") { Int(-2) } == -2)
    }

    @Test func anInterruptedCallIsRetriedUntilItSucceeds() throws {
        var calls = 0
        let result = try syscall("interrupted") { () -> Int in
            calls += 1
            if calls < 4 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(calls == 4)
    }

    @Test func anyOtherFailureThrowsNamingTheCall() {
        var calls = 0
        #expect {
            try syscall("open /nowhere") { () -> Int32 in
                calls += 1
                errno = ENOENT
                return -1
            }
        } throws: { error in
            error as? SystemCallError == SystemCallError(call: "open /nowhere", errno: ENOENT)
        }
        #expect(calls == 1)
    }

    @Test func aRealFailureCarriesItsErrno() {
        #expect(throws: SystemCallError(call: "open", errno: ENOENT)) {
            try syscall("open") { open("/nonexistent/breeze-\(getpid())", O_RDONLY) }
        }
    }

    @Test func theDescriptionNamesTheCallTheReasonAndTheNumber() {
        let error = SystemCallError(call: "bind /run/b.sock", errno: EACCES)
        #expect(error.description == "bind /run/b.sock: Permission denied (errno \(EACCES))")
    }
}

/// Files replaced whole: the contents after, the mode, no temporary left, the limit on reads.
@Suite struct AtomicFileTests {
    let folder = NSTemporaryDirectory() + "breeze-system-" + UUID().uuidString

    init() {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    @Test func aWrittenFileReadsBackWithItsModeAndNoTemporaryBeside() throws {
        defer { remove() }
        let path = folder + "/state.json"
        try AtomicFile.write(Array("first".utf8), to: path, mode: 0o600)
        try AtomicFile.write(Array("second, longer".utf8), to: path, mode: 0o600)
        #expect(try AtomicFile.read(path) == Array("second, longer".utf8))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["state.json"])
    }

    @Test func anEmptyFileIsEmptyAndAMissingOneIsNil() throws {
        defer { remove() }
        try AtomicFile.write([], to: folder + "/empty")
        #expect(try AtomicFile.read(folder + "/empty") == [])
        #expect(try AtomicFile.read(folder + "/missing") == nil)
    }

    @Test func aFileOverTheLimitIsRefusedAndOneAtItIsRead() throws {
        defer { remove() }
        let bytes = [UInt8](repeating: 0x61, count: 100_000)
        try AtomicFile.write(bytes, to: folder + "/big")
        #expect(try AtomicFile.read(folder + "/big", limit: 100_000) == bytes)
        #expect {
            _ = try AtomicFile.read(folder + "/big", limit: 99_999)
        } throws: { error in
            (error as? SystemCallError)?.errno == EFBIG
        }
    }

    @Test func writingIntoAMissingFolderFailsAndLeavesNothing() throws {
        defer { remove() }
        #expect {
            try AtomicFile.write([1], to: folder + "/no/such/file")
        } throws: { error in
            (error as? SystemCallError)?.errno == ENOENT
        }
    }

    @Test func makeFolderCreatesTheParentsAndAcceptsOneThatExists() throws {
        defer { remove() }
        let path = folder + "/a/b/c"
        try AtomicFile.makeFolder(path, mode: 0o700)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFDIR)
        #expect(info.st_mode & 0o777 == 0o700)
        try AtomicFile.makeFolder(path)
    }

    @Test func makeFolderFailsUnderAFile() throws {
        defer { remove() }
        try AtomicFile.write([1], to: folder + "/file")
        #expect(throws: SystemCallError.self) { try AtomicFile.makeFolder(folder + "/file/sub") }
    }
}
