/// What a dataset's report is: a value fetched for a place, cached as JSON, checked for plausibility before it is
/// kept, and able to say when it holds nothing for the place.
public protocol DatasetReport: Codable, Hashable, Sendable, Plausible {
    /// The dataset this report belongs to.
    static var dataset: Dataset { get }

    /// Why this report has nothing to show for its place, or nil when it has.
    var unavailableReason: String? { get }
}
