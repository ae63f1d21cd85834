#if canImport(Glibc)
import Glibc
#endif

/// Gives memory back to the system after a refused large body.
///
/// The chunks of a body URLSession queued before it was refused are freed into glibc's heap, which keeps freed
/// memory for reuse: without a trim the daemon's resident size stays near its peak.
enum MemoryRelease {
    private typealias Trim = @convention(c) (Int) -> Int32

    /// glibc's `malloc_trim`, looked up once: the Glibc module does not import `malloc.h`.
    private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    /// Wraps `malloc_trim(0)`: returns free heap memory to the system.
    static func afterRefusedBody() {
        _ = trim?(0)
    }
}
