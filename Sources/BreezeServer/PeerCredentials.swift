import BreezeSystem

#if canImport(Glibc)
import Glibc
#endif

/// Who is on the other end of a Unix socket, as the kernel says (`SO_PEERCRED`).
public struct PeerCredentials: Hashable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Reads the credentials of the peer connected on `fd`. Wraps `getsockopt(SO_PEERCRED)`.
    static func of(_ fd: Int32) -> PeerCredentials? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields (Swift does not import ucred
        // without _GNU_SOURCE).
        var fields: [UInt32] = [0, 0, 0]
        var length = socklen_t(12)
        let status = fields.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length) }
        guard status == 0, length == 12 else { return nil }
        return PeerCredentials(pid: Int32(bitPattern: fields[0]), uid: fields[1], gid: fields[2])
    }
}

/// Who may change the daemon's state: root, the daemon's own user, and members of one group.
public struct TrustPolicy: Hashable, Sendable {
    public var ownUID: UInt32
    /// The group whose members may change state (and see precise coordinates); nil for none.
    public var groupID: UInt32?

    public init(ownUID: UInt32 = getuid(), groupID: UInt32? = nil) {
        self.ownUID = ownUID
        self.groupID = groupID
    }

    /// True for root, the daemon's user, and members of the group (primary or supplementary).
    public func trusts(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == ownUID { return true }
        guard let groupID else { return false }
        if peer.gid == groupID { return true }
        return Self.supplementaryGroups(of: peer.uid).contains(groupID)
    }

    /// The groups that list the user by name (from the group database).
    static func supplementaryGroups(of uid: UInt32) -> Set<UInt32> {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, entry.pointee.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, entry.pointee.pw_gid, &groups, &count)
        }
        return Set(groups.prefix(Int(max(0, count))))
    }
}
