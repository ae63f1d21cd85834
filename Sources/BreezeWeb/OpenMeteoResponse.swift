import BreezeCore
import FoundationEssentials

/// What all Open-Meteo APIs share: error bodies, status codes, and local times with a UTC offset.
enum OpenMeteoResponse {
    private struct ErrorBody: Decodable {
        var reason: String?
    }

    /// The body of a successful answer, or the typed error the status and body describe.
    static func body(of response: HTTPClient.Response) throws(WebError) -> Data {
        let status = response.status
        if (200..<300).contains(status) { return response.body }
        let reason = (try? JSONValue.decode(ErrorBody.self, from: response.body))?.reason
        let retryAfter = response.headers["retry-after"].flatMap(Self.retryAfter)
        switch status {
        case 400:
            throw WebError(.badRequest, reason ?? "the request was refused", status: status)
        case 429:
            throw WebError(.rateLimited, reason ?? "too many requests", status: status, retryAfter: retryAfter)
        case 503:
            throw WebError(.unavailable, reason ?? "the service is overloaded", status: status, retryAfter: retryAfter)
        case 500..<600:
            throw WebError(.serverError, reason ?? "server error", status: status, retryAfter: retryAfter)
        default:
            throw WebError(.unexpectedStatus, reason ?? "unexpected status", status: status)
        }
    }

    /// `Retry-After` in seconds (the delta form; an HTTP date is read as "a minute").
    static func retryAfter(_ text: String) -> Double? {
        let trimmed = text.trimmingSpaces()
        if let seconds = Double(trimmed), seconds.isFinite, seconds >= 0 { return min(seconds, 86_400) }
        return trimmed.isEmpty ? nil : 60
    }

    /// Decodes a JSON body; anything wrong with it is `badPayload` saying where.
    static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws(WebError) -> T {
        if body.isEmpty { throw WebError(.badPayload, "empty body") }
        do {
            return try JSONValue.decode(type, from: body)
        } catch let error as DecodingError {
            throw WebError(.badPayload, describe(error))
        } catch {
            throw WebError(.badPayload, "\(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the body" : keys.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context)): expected \(readable(type))"
        case .valueNotFound(let type, let context): return "\(path(context)): missing \(readable(type))"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing key \"\(key.stringValue)\""
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)): \(context.debugDescription)"
        @unknown default: return "unreadable payload"
        }
    }

    private static func readable(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type, is Double?.Type: "a number"
        case is String.Type: "a string"
        default: "\(type)"
        }
    }

    /// "YYYY-MM-DDTHH:MM" in local time with the location's offset from UTC, as seconds since 1970 (UTC).
    static func time(_ local: String, utcOffset: Int) throws(WebError) -> Double {
        let parts = local.split(separator: "T")
        guard parts.count == 2, let date = CivilDate(iso8601: parts[0]) else {
            throw WebError(.badPayload, "time \"\(local)\" is not YYYY-MM-DDTHH:MM")
        }
        let clock = parts[1].split(separator: ":")
        guard clock.count >= 2, let hour = Int(clock[0]), let minute = Int(clock[1]), (0..<24).contains(hour),
            (0..<60).contains(minute)
        else { throw WebError(.badPayload, "time \"\(local)\" is not YYYY-MM-DDTHH:MM") }
        let localSeconds = Double(date.daysSince1970) * 86_400 + Double(hour * 3600 + minute * 60)
        return localSeconds - Double(utcOffset)
    }
}
