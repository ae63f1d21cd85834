import Glibc

/// Where one thread of the task pool sleeps: until `unpark`, or until a deadline. An `unpark` that comes before the
/// thread parks is kept, so the next `park` returns at once; the caller checks why it woke.
///
/// Each thread has its own, so the waker signals after letting go of every lock. With one condition variable under
/// the pool's mutex, the woken thread ran at once on the waker's processor, found the mutex still held, and slept
/// again: four context switches for each job handed from another thread (a gpsd fix) instead of two.
final class Parker: @unchecked Sendable {
    // @unchecked: `permitted` is touched only with `mutex` held; the pointers are set once.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var permitted = false

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    /// Sleeps until unparked, or until `deadline` (CLOCK_MONOTONIC nanoseconds) when one is given.
    func park(until deadline: UInt64?) {
        pthread_mutex_lock(mutex)
        if let deadline {
            var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            while !permitted, pthread_cond_timedwait(condition, mutex, &until) != ETIMEDOUT {}
        } else {
            while !permitted { pthread_cond_wait(condition, mutex) }
        }
        permitted = false
        pthread_mutex_unlock(mutex)
    }

    /// Wakes the thread, or keeps the wake-up for its next `park`. Signals after unlocking: only this parker's thread
    /// waits on the condition, and it looks at `permitted` under the mutex before it waits.
    func unpark() {
        pthread_mutex_lock(mutex)
        permitted = true
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(condition)
    }
}
