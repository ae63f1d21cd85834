#if canImport(Glibc)
    import Glibc
#endif

/// Who may change the daemon's state: root, the daemon's own user, and members of one group.
public struct TrustPolicy: Hashable, Sendable {
    public var ownUID: UInt32
    /// The group whose members may change state (and see precise coordinates); nil for none.
    public var groupID: UInt32?
    /// What a refused peer is told about being trusted (the group to join, and how); nil: that it needs to be.
    public var hint: String?

    public init(ownUID: UInt32 = getuid(), groupID: UInt32? = nil, hint: String? = nil) {
        self.ownUID = ownUID
        self.groupID = groupID
        self.hint = hint
    }

    /// True for root, the daemon's user, and a peer whose connection carries the group (as its primary group or a
    /// supplementary one). Pure: the groups come with the credentials, never from the group database.
    public func trusts(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == ownUID { return true }
        guard let groupID else { return false }
        return peer.gid == groupID || peer.groups.contains(groupID)
    }
}
