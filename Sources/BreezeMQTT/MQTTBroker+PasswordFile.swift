import BreezeSystem

extension MQTTBroker {
    /// The largest password file read.
    static let maximumPasswordFileSize = 4_096

    /// This broker with the first line of the file at `path` as its password: a password kept out of the URL and
    /// the configuration, in a file fewer users can read. The URL must name the user (`mqtt://user@host`).
    public func withPassword(fromFile path: String) throws(MQTTError) -> MQTTBroker {
        guard username != nil else {
            throw MQTTError(.badConfiguration, "the password file \(path) needs a user in the URL (mqtt://user@host)")
        }
        let bytes: [UInt8]?
        do throws(SystemCallError) {
            bytes = try AtomicFile.read(path, limit: Self.maximumPasswordFileSize)
        } catch {
            throw MQTTError(.badConfiguration, "cannot read the password file \(path): \(error.reason)", cause: error)
        }
        guard let bytes, let text = String(validating: bytes, as: UTF8.self) else {
            let problem = bytes == nil ? "it does not exist" : "it is not UTF-8 text"
            throw MQTTError(.badConfiguration, "cannot read the password file \(path): \(problem)")
        }
        // Split on scalars: "\r\n" is one Character, so a file written on Windows would not split on "\n".
        let firstLine = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).first ?? []
        var line = String.UnicodeScalarView(firstLine)
        if line.last == "\r" { line.removeLast() }
        var broker = self
        broker.password = String(line)
        return broker
    }
}
