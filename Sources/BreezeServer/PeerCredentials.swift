import BreezeSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Who is on the other end of a Unix socket, as the kernel says: `SO_PEERCRED` for the process, user and group,
/// `SO_PEERGROUPS` for its supplementary groups, all as they were when it connected.
public struct PeerCredentials: Hashable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// The peer's supplementary groups: those of the process, not those the group database lists for its user (a
    /// process may have dropped groups, or been given some, and reading the database can block on NSS or LDAP).
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// `SO_PEERGROUPS` (Linux 4.13), which Glibc's headers do not name.
    static let peerGroupsOption: Int32 = 59
    /// More supplementary groups than Linux allows (`NGROUPS_MAX`, 65,536) is not an answer to believe.
    static let maximumGroups = 65_536

    /// Reads the credentials of the peer connected on `fd`. Wraps `getsockopt(SO_PEERCRED)` and
    /// `getsockopt(SO_PEERGROUPS)`, falling back to the peer's `/proc/PID/status` on kernels without the latter.
    static func of(_ fd: Int32) -> PeerCredentials? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields (Swift does not import ucred
        // without _GNU_SOURCE).
        var fields: [UInt32] = [0, 0, 0]
        var length = socklen_t(12)
        let status = fields.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length) }
        guard status == 0, length == 12 else { return nil }
        let pid = Int32(bitPattern: fields[0])
        let groups = peerGroups(fd) ?? procGroups(pid: pid) ?? []
        return PeerCredentials(pid: pid, uid: fields[1], gid: fields[2], groups: groups)
    }

    /// The groups from `SO_PEERGROUPS`, or nil where the kernel does not have it.
    static func peerGroups(_ fd: Int32) -> [UInt32]? {
        var groups = [UInt32](repeating: 0, count: 64)
        while true {
            var length = socklen_t(groups.count * 4)
            let status = groups.withUnsafeMutableBytes {
                getsockopt(fd, SOL_SOCKET, peerGroupsOption, $0.baseAddress, &length)
            }
            if status == 0 { return Array(groups.prefix(Int(length) / 4)) }
            // ERANGE: the kernel wrote how many bytes it needs.
            guard errno == ERANGE, Int(length) / 4 > groups.count, Int(length) / 4 <= maximumGroups else { return nil }
            groups = [UInt32](repeating: 0, count: Int(length) / 4)
        }
    }

    /// The `Groups:` line of /proc/PID/status: the process's groups now (it may have changed them since it
    /// connected, which is why `SO_PEERGROUPS` comes first). nil when it cannot be read.
    static func procGroups(pid: Int32) -> [UInt32]? {
        guard pid > 0, let bytes = try? AtomicFile.read("/proc/\(pid)/status", limit: 1 << 20) else { return nil }
        return parseGroupsLine(String(decoding: bytes, as: UTF8.self))
    }

    /// The numbers of the `Groups:` line of a /proc status text; nil without one or with anything but numbers.
    public static func parseGroupsLine(_ status: String) -> [UInt32]? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") }) else { return nil }
        var groups: [UInt32] = []
        for field in line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            // Digits only: UInt32(_:) would also take a sign, which /proc never writes.
            guard field.allSatisfy(\.isASCII), field.allSatisfy(\.isNumber), let group = UInt32(field),
                groups.count < maximumGroups
            else { return nil }
            groups.append(group)
        }
        return groups
    }
}
