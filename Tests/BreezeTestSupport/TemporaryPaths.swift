import Foundation
import Synchronization

/// Temporary files and folders a test run made, removed when the test process exits, pass or fail, for those not
/// removed by their owner before (`scripts/check-leftovers` fails a run that leaves any).
public enum TemporaryPaths {
    private static let paths = Mutex<[String]>([])

    private static let removalAtExit: Void = {
        atexit { TemporaryPaths.removeAll() }
    }()

    /// Removes `path` (a file or a folder with its contents) when the process exits, if it is still there.
    public static func removeAtExit(_ path: String) {
        _ = removalAtExit
        paths.withLock { $0.append(path) }
    }

    /// A new path in the temporary folder, `breeze-<name>-<pid>-<random><suffix>`, removed at exit.
    public static func make(_ name: String, suffix: String = "") -> String {
        let path = NSTemporaryDirectory() + "breeze-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))\(suffix)"
        removeAtExit(path)
        return path
    }

    static func removeAll() {
        for path in paths.withLock({ $0 }) where FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
