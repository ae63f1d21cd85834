import Glibc

/// Text written whole to a descriptor (standard output or error), however many writes it takes; a failed write
/// (a closed pipe) drops the rest.
public enum StandardStream {
    public static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    public static func output(_ text: String) { write(text, to: STDOUT_FILENO) }
    public static func error(_ text: String) { write(text, to: STDERR_FILENO) }
}
