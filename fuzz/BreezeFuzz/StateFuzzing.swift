import BreezeDaemon

/// The state file: what the reader accepts, the writer writes back, and the reader accepts again unchanged.
enum StateFuzzing {
    static func feed(_ bytes: [UInt8]) {
        guard let state = try? StateStore.decode(bytes) else { return }
        guard let written = try? StateStore.encode(state) else {
            fatalError("the state file reader accepted a state the writer refuses")
        }
        guard (try? StateStore.decode(written)) == state else {
            fatalError("a state written by breezed does not read back as itself")
        }
    }
}
