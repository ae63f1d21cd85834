/// Where encoded JSON goes, a byte or a run of bytes at a time: an array, or the line writer's own buffer. The
/// number writers take either, so that a line written straight to bytes writes its numbers the same way.
protocol JSONOutput: ~Copyable {
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer)
}

extension JSONOutput where Self: ~Copyable {
    /// The text's UTF-8 bytes.
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: UnsafeRawBufferPointer($0)) }
    }

    /// The literal's UTF-8 bytes.
    mutating func append(_ text: StaticString) {
        // withUTF8Buffer: a one-character literal is stored as a scalar, without a pointer to its bytes.
        text.withUTF8Buffer { append(contentsOf: UnsafeRawBufferPointer($0)) }
    }
}

extension [UInt8]: JSONOutput {}
