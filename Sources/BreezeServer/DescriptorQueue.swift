/// Descriptors waiting their turn: first in, first out, each at most once.
///
/// Removing one that waits is O(1): its entry is left behind and skipped when it comes up, so a client that leaves
/// while queued costs nothing to forget.
public struct DescriptorQueue {
    private var entries: [(fd: Int32, ticket: Int)] = []
    private var head = 0
    /// The ticket of each descriptor's live entry; an entry with another ticket is one left behind.
    private var tickets: [Int32: Int] = [:]
    private var nextTicket = 0

    public init() {}

    public var isEmpty: Bool { tickets.isEmpty }
    public var count: Int { tickets.count }

    public func contains(_ fd: Int32) -> Bool {
        tickets[fd] != nil
    }

    /// Queues `fd` at the end, unless it already waits (it keeps its place).
    public mutating func append(_ fd: Int32) {
        guard tickets[fd] == nil else { return }
        tickets[fd] = nextTicket
        entries.append((fd, nextTicket))
        nextTicket &+= 1
    }

    /// The descriptor that has waited longest, no longer queued.
    public mutating func popFirst() -> Int32? {
        while head < entries.count {
            let entry = entries[head]
            head += 1
            if tickets[entry.fd] == entry.ticket {
                tickets[entry.fd] = nil
                compactIfWasteful()
                return entry.fd
            }
        }
        entries = []
        head = 0
        return nil
    }

    public mutating func remove(_ fd: Int32) {
        tickets[fd] = nil
        if tickets.isEmpty {
            entries = []
            head = 0
        }
    }

    public mutating func removeAll() {
        self = DescriptorQueue()
    }

    /// Drops entries already passed once they are most of the storage.
    private mutating func compactIfWasteful() {
        guard head > 64, head * 2 > entries.count else { return }
        entries.removeFirst(head)
        head = 0
    }
}
