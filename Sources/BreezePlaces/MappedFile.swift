#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A read-only memory map of a whole file. Unmaps exactly once, when the last reference goes.
final class MappedFile: Sendable {
    /// Immutable after init: the mapping is read-only and lives as long as this object.
    nonisolated(unsafe) let base: UnsafeRawPointer
    let count: Int
    private let isMapped: Bool

    /// Maps `path`. Wraps `open`, `fstat` and `mmap`; the descriptor is closed before returning.
    init(path: String) throws(PlacesIndexError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PlacesIndexError(.unreadable, path: path, "open: \(Errno.describe(errno))") }
        defer { _ = close(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw PlacesIndexError(.unreadable, path: path, "fstat: \(Errno.describe(errno))")
        }
        count = Int(info.st_size)
        guard count > 0 else { throw PlacesIndexError(.corrupt, path: path, "the file is empty") }

        guard let pointer = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), pointer != MAP_FAILED else {
            throw PlacesIndexError(.unreadable, path: path, "mmap: \(Errno.describe(errno))")
        }
        base = UnsafeRawPointer(pointer)
        isMapped = true
    }

    /// Holds bytes already in memory (tests, freshly built indexes), copied into memory this object owns.
    init(bytes: [UInt8]) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        base = UnsafeRawPointer(buffer)
        count = bytes.count
        isMapped = false
    }

    /// Drops the pages of the file this process has touched from its resident memory; the next read faults them
    /// back in from the page cache. Safe while others read: the mapping is private and never written, so a dropped
    /// page comes back as it was. Wraps `madvise(MADV_DONTNEED)`.
    func releaseResidentPages() {
        guard isMapped else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), count, MADV_DONTNEED)
    }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }
}

enum Errno {
    static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
