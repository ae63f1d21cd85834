import BreezeFuzz
import Foundation

#if canImport(Glibc)
import Glibc
#endif

#if FUZZING
/// libFuzzer's driver (linked from the toolchain's libclang_rt.fuzzer_no_main by `scripts/fuzz`).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target this process fuzzes, chosen once by `BREEZE_FUZZ_TARGET`.
nonisolated(unsafe) private var fuzzTarget = FuzzTarget.protocol
nonisolated(unsafe) private var fuzzRoot = ""
#endif

/// `breeze-fuzz`: built by `scripts/fuzz` (with `-DFUZZING`, sanitizers and coverage), libFuzzer runs the target
/// named by `BREEZE_FUZZ_TARGET`. Built as usual, it replays files through a target instead: `breeze-fuzz TARGET
/// FILE...` (to reproduce a crash without the fuzzing build), and `breeze-fuzz --list` names the targets.
@main
enum FuzzMain {
    static func main() {
        let root = repositoryRoot()
        if Array(CommandLine.arguments.dropFirst()) == ["--list"] {
            print(names)
            return
        }
        #if FUZZING
        guard let name = ProcessInfo.processInfo.environment["BREEZE_FUZZ_TARGET"], let target = FuzzTarget(rawValue: name)
        else {
            FileHandle.standardError.write(Data("breeze-fuzz: set BREEZE_FUZZ_TARGET to one of \(names)\n".utf8))
            exit(64)
        }
        fuzzTarget = target
        fuzzRoot = root
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let status = runFuzzerDriver(&argc, &argv) { data, size in
            fuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size), root: fuzzRoot)
            return 0
        }
        FuzzTarget.finish()
        exit(status)
        #else
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("usage: breeze-fuzz TARGET FILE... (targets: \(names))\n".utf8))
            exit(64)
        }
        for file in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("breeze-fuzz: cannot read \(file)\n".utf8))
                exit(66)
            }
            data.withUnsafeBytes { target.run($0, root: root) }
            print("ok \(file)")
        }
        FuzzTarget.finish()
        #endif
    }

    static var names: String {
        FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
    }

    /// The repository: the nearest folder above the executable (somewhere in `.build`) with a Package.swift.
    static func repositoryRoot() -> String {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.path + "/Package.swift") {
            url.deleteLastPathComponent()
        }
        return url.path
    }
}
