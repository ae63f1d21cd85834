import BreezeSystem
import Foundation
import Testing

/// The environment and paths read from the C library, as Foundation reads them.
@Suite struct ProcessEnvironmentTests {
    @Test func eachVariableIsFoundationsEnvironment() {
        let environment = ProcessInfo.processInfo.environment
        #expect(!environment.isEmpty)
        for (name, value) in environment {
            #expect(ProcessEnvironment.variable(name) == value, "\(name)")
            #expect(ProcessEnvironment.Variables.process[name] == value, "\(name)")
        }
        let unset = "BREEZE_UNSET_\(getpid())"
        #expect(environment[unset] == nil)
        #expect(ProcessEnvironment.variable(unset) == nil)
        #expect(ProcessEnvironment.Variables.process[unset] == nil)
    }

    @Test func aFixedSetIsAllThereIs() throws {
        let name = try #require(ProcessInfo.processInfo.environment.keys.first)
        let none: ProcessEnvironment.Variables = [:]
        #expect(none[name] == nil)
        let some: ProcessEnvironment.Variables = ["LANG": "C", "TERM": "dumb"]
        #expect(some["LANG"] == "C")
        #expect(some["TERM"] == "dumb")
        #expect(some[name] == nil || ["LANG", "TERM"].contains(name))
        #expect(ProcessEnvironment.Variables(["NO_COLOR": ""])["NO_COLOR"] == "")
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
