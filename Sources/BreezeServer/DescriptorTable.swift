/// Values keyed by file descriptor, stored densely by descriptor number.
///
/// Descriptors are small integers the kernel hands out lowest-first, so an array indexed by them is a table with no
/// hashing, and visiting it in order follows the order the sockets were created in, which is the order their kernel
/// structures lie in memory: fanning an update out to 1,000 sockets that way is measurably faster than in a hash
/// table's order.
public struct DescriptorTable<Element> {
    private var slots: [Element?] = []
    /// Which slots hold a value: tested instead of the slot itself, which would copy the value out to look at it.
    private var occupied: [Bool] = []
    public private(set) var count = 0

    public init() {}

    public func contains(_ fd: Int32) -> Bool {
        fd >= 0 && Int(fd) < occupied.count && occupied[Int(fd)]
    }

    /// The value for `fd`. Setting nil removes it; changes through the subscript happen in place.
    public subscript(fd: Int32) -> Element? {
        get {
            contains(fd) ? slots[Int(fd)] : nil
        }
        _modify {
            precondition(fd >= 0, "a descriptor is never negative")
            let index = Int(fd)
            if index >= slots.count {
                slots.append(contentsOf: repeatElement(nil, count: index + 1 - slots.count))
                occupied.append(contentsOf: repeatElement(false, count: index + 1 - occupied.count))
            }
            yield &slots[index]
            let now = slots[index] != nil
            count += (now ? 1 : 0) - (occupied[index] ? 1 : 0)
            occupied[index] = now
        }
    }

    /// What `body` reads of the value for `fd`, nil when there is none: the value is lent, not copied (the getter
    /// copies it whole, retaining every buffer it holds, to read one field).
    public func read<Result>(_ fd: Int32, _ body: (borrowing Element) -> Result) -> Result? {
        guard contains(fd) else { return nil }
        return body(slots[Int(fd)]!)
    }

    @discardableResult
    public mutating func removeValue(for fd: Int32) -> Element? {
        guard contains(fd) else { return nil }
        defer { self[fd] = nil }
        return slots[Int(fd)]
    }

    public mutating func removeAll() {
        slots = []
        occupied = []
        count = 0
    }

    /// The values held, in descriptor order.
    public var values: [Element] {
        slots.compactMap { $0 }
    }

    /// Visits every value in place, in descriptor order.
    public mutating func updateEach(_ body: (inout Element) -> Void) {
        for index in occupied.indices where occupied[index] {
            body(&slots[index]!)
        }
    }
}
