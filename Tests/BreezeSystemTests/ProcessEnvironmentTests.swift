import BreezeSystem
import Foundation
import Testing

/// The environment and paths read from the C library, as Foundation reads them.
@Suite struct ProcessEnvironmentTests {
    @Test func theVariablesAreFoundationsEnvironment() {
        let variables = ProcessEnvironment.variables
        #expect(!variables.isEmpty)
        #expect(variables == ProcessInfo.processInfo.environment)
    }

    @Test func aPathIsMadeAbsoluteAndItsLinksResolved() throws {
        let folder = NSTemporaryDirectory() + "process-environment-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let real = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        #expect(FileManager.default.createFile(atPath: folder + "/bin/program", contents: Data()))
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/link", withDestinationPath: folder + "/bin/program")

        #expect(ProcessEnvironment.resolvedPath(folder + "/link") == real + "/bin/program")
        #expect(ProcessEnvironment.resolvedPath(folder + "/bin/../link") == real + "/bin/program")
        #expect(ProcessEnvironment.resolvedPath("/no/such/place/program") == "/no/such/place/program")
        let working = FileManager.default.currentDirectoryPath
        #expect(ProcessEnvironment.resolvedPath("no-such-program") == working + "/no-such-program")
    }

    @Test func somethingExistsWhereAFileOrAFolderIs() throws {
        #expect(ProcessEnvironment.exists("/"))
        #expect(ProcessEnvironment.exists(#filePath))
        #expect(!ProcessEnvironment.exists(#filePath + ".missing"))
    }
}
