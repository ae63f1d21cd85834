import BreezeData

/// The fetchAllData pipeline (nil with `--offline`) and the dataset updates it publishes, which the daemon takes one
/// by one and alone publishes (to the socket, the broker and the refresh waits).
struct DataFeed {
    let pipeline: DataPipeline?
    let updates: AsyncStream<DataUpdate>
}
