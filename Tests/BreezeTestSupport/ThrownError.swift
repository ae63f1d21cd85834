/// The error `body` throws when it is an `E`; nil when it throws nothing, or another error. What `#expect(throws:)`
/// returns from Swift Testing 6.1 on, for Swift 6.0 (Debian's): the caller's expectations on it fail on nil.
public func thrownError<E: Error, R>(_ type: E.Type, by body: () async throws -> R) async -> E? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? E
    }
}
