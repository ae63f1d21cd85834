import Foundation

/// This machine's TCP sockets as the kernel lists them in /proc/net/tcp and /proc/net/tcp6.
public struct TCPTableEntry: Sendable {
    public var localPort: Int
    public var remotePort: Int
    /// The kernel's state code in hex: "0A" is LISTEN, "01" ESTABLISHED.
    public var state: String
    public var inode: String

    public static func all() -> [TCPTableEntry] {
        var entries: [TCPTableEntry] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: procfs files report size 0, and a busy machine's table spans many pages.
            guard let data = FileHandle(forReadingAtPath: table)?.readDataToEndOfFile() else { continue }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                let fields = line.split(separator: " ")
                guard fields.count > 9, let local = port(fields[1]), let remote = port(fields[2]) else { continue }
                entries.append(TCPTableEntry(
                    localPort: local, remotePort: remote, state: String(fields[3]), inode: String(fields[9])))
            }
        }
        return entries
    }

    /// The port of an "address:port" field, both in hex.
    private static func port(_ field: Substring) -> Int? {
        field.split(separator: ":").last.flatMap { Int($0, radix: 16) }
    }
}
