import Foundation

/// The HTTP client's delegate queue: it runs each delegate call at once, on the thread that hands it over.
///
/// URLSession (swift-corelibs-foundation) hands each chunk of a body to the delegate by adding an operation to
/// its delegate queue and reading on without waiting, so a server that sends faster than an ordinary queue runs
/// piles its body up in that queue: an endless chunked body grew the process by gigabytes before the delegate saw
/// enough of it to refuse it. Run here, the delegate sees each chunk before libcurl reads the next, so a refused
/// body stops at the cap and an unread one waits in the sender's TCP buffers, not in this process.
///
/// The delegate must therefore be quick and must not wait for URLSession's queue (it runs on it).
final class SynchronousDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: no state is added to OperationQueue's own, which is thread-safe.

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
