public import BreezeCore

/// How a dataset's report goes on the wire: the members that follow the common header (`class`, `state`, `reason`,
/// `place`, `place_id`, `fetched`, `age_s`) in its protocol object. Every dataset's report conforms, each in a file
/// of its own.
public protocol DatasetMessageBody: DatasetReport {
    /// The report's members, in the order they are sent.
    var messageMembers: [(String, JSONValue)] { get }

    /// The members sent while there is no report yet (none unless the dataset says otherwise).
    static var membersWithoutReport: [(String, JSONValue)] { get }

    /// Its Home Assistant sensors, read from its object (none unless the dataset says otherwise).
    static var sensors: [DatasetSensor] { get }

    /// True when its sensors are announced only once it has data to show (fresh or stale), rather than at start.
    static var sensorsWaitForData: Bool { get }
}

extension DatasetMessageBody {
    public static var membersWithoutReport: [(String, JSONValue)] { [] }

    public static var sensors: [DatasetSensor] { [] }

    public static var sensorsWaitForData: Bool { false }
}
