/// Waits until `condition` holds, checking every 20 ms, for at most `timeout` seconds: a wait for an event with a
/// deadline, for conditions that no stream announces (a fixture's request log, a process's exit). Returns whether
/// it held.
@discardableResult
public func eventually(timeout: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = TestTime.deadline(after: timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
