import BreezeSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The write end of the pipe signals are written to while a `TerminalSignals` is installed (-1: none). A signal
/// handler may only touch lock-free state; an atomic is that.
private let signalPipeWriteEnd = Atomic<Int32>(-1)

/// SIGINT, SIGTERM, SIGHUP and SIGWINCH delivered as bytes on a pipe (the signal's number), so that the interactive
/// search's poll loop sees them beside its keys and socket and restores the terminal before leaving.
final class TerminalSignals {
    static let handled = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]

    /// Where the signals' numbers arrive.
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(CLIError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw CLIError(.failure, "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        // Neither end blocks (a handler must never wait), and neither is inherited by a program started later.
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        signalPipeWriteEnd.store(writeEnd, ordering: .sequentiallyConsistent)
        for number in Self.handled {
            signal(number) { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                let fd = signalPipeWriteEnd.load(ordering: .sequentiallyConsistent)
                if fd >= 0 { _ = Glibc.write(fd, &byte, 1) }
                errno = saved
            }
        }
    }

    private var installed = true

    deinit {
        uninstall()
    }

    /// The default handlers back, and the pipe closed; once, whatever calls it first.
    func uninstall() {
        guard installed else { return }
        installed = false
        for number in Self.handled { signal(number, SIG_DFL) }
        signalPipeWriteEnd.store(-1, ordering: .sequentiallyConsistent)
        close(readEnd)
        close(writeEnd)
    }

    /// The signals that have arrived since the last call, in order.
    func received() -> [Int32] {
        var numbers: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = retryingOnInterrupt {
                buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            }
            guard count > 0 else { return numbers }
            numbers += buffer[0..<count].map(Int32.init)
        }
    }
}
